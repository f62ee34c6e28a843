//! Stable machine error codes, the `code` of an error reply.
//!
//! Clients match on these; the human `message` beside them may change at any time. A new
//! rejection gets a new constant here, never a reused one.

/// The request body is not valid JSON.
pub const MALFORMED_JSON: &str = "malformed_json";
/// The JSON is well formed but a field is missing or has the wrong type or shape.
pub const INVALID_FIELD: &str = "invalid_field";
/// A money amount or count is negative.
pub const NEGATIVE_AMOUNT: &str = "negative_amount";
/// No handler for this verb.
pub const UNKNOWN_VERB: &str = "unknown_verb";
/// The tournament definition breaks a rule (field and reason in the message).
pub const INVALID_DEFINITION: &str = "invalid_definition";
/// The fee is above what the tournament's rule profile allows.
pub const FEE_TOO_HIGH: &str = "fee_too_high";
/// The fee is below what the tournament's rule profile requires (003 GP §2: at least 2 %).
pub const FEE_TOO_LOW: &str = "fee_too_low";
/// The buy-in is above what the tournament's rule profile allows.
pub const BUY_IN_TOO_HIGH: &str = "buy_in_too_high";
/// A tournament with this id already exists.
pub const TOURNAMENT_EXISTS: &str = "tournament_exists";
/// No tournament with this id.
pub const UNKNOWN_TOURNAMENT: &str = "unknown_tournament";
/// Registration has not opened yet.
pub const REGISTRATION_NOT_OPEN: &str = "registration_not_open";
/// Registration (including late registration) is over.
pub const REGISTRATION_CLOSED: &str = "registration_closed";
/// Every seat of the tournament is taken.
pub const FIELD_FULL: &str = "field_full";
/// The player already has an entry and the entry model allows no other now.
pub const ALREADY_REGISTERED: &str = "already_registered";
/// Re-entry is only possible after the player's last entry was eliminated.
pub const RE_ENTRY_NOT_ELIGIBLE: &str = "re_entry_not_eligible";
/// The player used every entry the re-entry cap allows.
pub const RE_ENTRY_CAP_REACHED: &str = "re_entry_cap_reached";
/// The player holds as many live entries as multi-entry allows.
pub const MULTI_ENTRY_CAP_REACHED: &str = "multi_entry_cap_reached";
/// The rule profile makes registrations final.
pub const UNREGISTER_NOT_ALLOWED: &str = "unregister_not_allowed";
/// The tournament has started; this is only possible before.
pub const TOURNAMENT_STARTED: &str = "tournament_started";
/// The player has no live entry in this tournament.
pub const NOT_REGISTERED: &str = "not_registered";
/// No such entry in this tournament.
pub const UNKNOWN_ENTRY: &str = "unknown_entry";
/// The entry is already eliminated.
pub const ENTRY_ALREADY_ELIMINATED: &str = "entry_already_eliminated";
/// The operator refused this player for this tournament (001 Art. 20).
pub const PLAYER_REFUSED: &str = "player_refused";
/// The operator keeps this player apart from someone already entered (001 Art. 20).
pub const PLAYER_KEPT_APART: &str = "player_kept_apart";
/// The player's own tournament-count limit for the day, week or month is reached (002 §2.3).
pub const ENTRY_LIMIT_REACHED: &str = "entry_limit_reached";
/// The limits given are not valid (for example zero or decreasing windows).
pub const INVALID_LIMITS: &str = "invalid_limits";
/// The rulebook requires limits per day, calendar week and calendar month before a tournament, and the player has not set them (002 §2.3 T-2.2).
pub const LIMITS_NOT_SET: &str = "limits_not_set";
/// The player shut themselves out of tournaments until a time (002 §2.3): refused until then.
pub const SELF_EXCLUDED: &str = "self_excluded";
/// A self-exclusion that would end before the one in force: nobody shortens one.
pub const ALREADY_EXCLUDED: &str = "already_excluded";
/// The aggregate kept changing under the command; it was not applied. Safe to retry.
pub const CONFLICT: &str = "conflict";
/// The event store or the bus failed; the command may or may not be applied. Retry with the same
/// command id: it is applied at most once.
pub const UNAVAILABLE: &str = "unavailable";

/// A table report names a table Floor does not have.
pub const UNKNOWN_TABLE: &str = "unknown_table";
/// A table report's hand number does not follow the table's last hand.
pub const HAND_OUT_OF_ORDER: &str = "hand_out_of_order";
/// A table report names a player who is not at that table (or not in that hand).
pub const UNKNOWN_PLAYER: &str = "unknown_player";
/// A table report puts a player in a seat Floor has someone else in.
pub const WRONG_SEAT: &str = "wrong_seat";
/// A table report's starting stack differs from Floor's.
pub const STACK_MISMATCH: &str = "stack_mismatch";
/// A finished hand has more or fewer chips than it started with.
pub const CHIPS_NOT_CONSERVED: &str = "chips_not_conserved";
/// A bust's pots do not add up to its starting stack, or name a winner not in the hand.
pub const BUST_DOES_NOT_ADD_UP: &str = "bust_does_not_add_up";
/// A player dealt in is neither in the stacks nor among the busts, or is in both.
pub const PLAYER_UNACCOUNTED: &str = "player_unaccounted";

/// The blind structure breaks a rule (the message names the step and the rule).
pub const INVALID_STRUCTURE: &str = "invalid_structure";
/// The clock has not started.
pub const CLOCK_NOT_STARTED: &str = "clock_not_started";
/// The clock has already started.
pub const CLOCK_ALREADY_STARTED: &str = "clock_already_started";
/// The clock is running (for example: resume a running clock).
pub const CLOCK_RUNNING: &str = "clock_running";
/// The clock is paused (for example: pause a paused clock).
pub const CLOCK_PAUSED: &str = "clock_paused";
/// No such level or step in the structure.
pub const UNKNOWN_LEVEL: &str = "unknown_level";
/// Only during a break.
pub const NOT_IN_BREAK: &str = "not_in_break";
/// The tournament was cancelled.
pub const TOURNAMENT_CANCELLED: &str = "tournament_cancelled";
/// The start time has not come yet.
pub const TOO_EARLY: &str = "too_early";
/// A sit & go starts itself when its last seat is filled.
pub const STARTS_WHEN_FULL: &str = "starts_when_full";
/// A cron expression that does not parse.
pub const INVALID_CRON: &str = "invalid_cron";
/// A time zone not in the IANA database.
pub const UNKNOWN_TIME_ZONE: &str = "unknown_time_zone";
/// No such schedule template.
pub const UNKNOWN_TEMPLATE: &str = "unknown_template";
/// The template exists already.
pub const TEMPLATE_EXISTS: &str = "template_exists";
/// The template's tournament is not a valid definition.
pub const INVALID_TEMPLATE: &str = "invalid_template";
/// A draw's seed does not match its published commitment.
pub const SEED_MISMATCH: &str = "seed_mismatch";
/// Too few entries to draw seats.
pub const TOO_FEW_ENTRIES: &str = "too_few_entries";
/// A flight's Day 2 holding stacks carried from its Day 1s is cancelled by the abort service,
/// which pays the Day 1s' pools (registration's cancel refunds buy-ins only).
pub const CANCEL_THROUGH_ABORT: &str = "cancel_through_abort";

// Payouts.
/// Every paid place of the tournament has been paid; nothing more to award.
pub const ALREADY_PAID: &str = "already_paid";
/// The entry already has its finishing place.
pub const ALREADY_PLACED: &str = "already_placed";
/// Two amounts that must share a currency do not (e.g. guarantee and buy-in).
pub const CURRENCY_MISMATCH: &str = "currency_mismatch";

// Rebuys and add-ons.
/// The tournament has no rebuys (or no add-on).
pub const NOT_OFFERED: &str = "not_offered";
/// The rebuy period has not started yet, or is over.
pub const REBUY_PERIOD_CLOSED: &str = "rebuy_period_closed";
/// The entry has used every rebuy it may take.
pub const REBUY_CAP_REACHED: &str = "rebuy_cap_reached";
/// The entry's stack does not allow a rebuy now (above the condition's limit, or no offer open).
pub const REBUY_NOT_ALLOWED: &str = "rebuy_not_allowed";
/// The add-on is not open (before the end of the rebuy period, or after its break).
pub const ADD_ON_CLOSED: &str = "add_on_closed";
/// The entry has taken its add-on already.
pub const ADD_ON_TAKEN: &str = "add_on_taken";
/// The entry still has chips (or its rebuy decision is not made): it cannot be eliminated now.
pub const STILL_IN_PLAY: &str = "still_in_play";
/// The player holds several live entries: name one.
pub const ENTRY_AMBIGUOUS: &str = "entry_ambiguous";

// Clock bounds (issue 17).
/// A clock adjustment is out of range: more than 24 hours added or removed by one command, or
/// time added beyond 48 hours left in the step (`floor_rules::clock`).
pub const TIME_ADJUSTMENT_OUT_OF_RANGE: &str = "time_adjustment_out_of_range";
/// An instant the clock would compute (a step's end) is outside the range it can represent.
pub const CLOCK_TIME_OUT_OF_RANGE: &str = "clock_time_out_of_range";
// Limits (issue 17): bad input a stranger can type, each with its own answer.
/// A text field is longer than its maximum (the message names the field and the maximum).
pub const TEXT_TOO_LONG: &str = "text_too_long";
/// A text field holds a control character (newline, tab, escape…).
pub const CONTROL_CHARACTER: &str = "control_character";
/// A reason is required here (for example to cancel a tournament) and none was given.
pub const REASON_REQUIRED: &str = "reason_required";
/// A cancellation under hrvatska-lutrija-2017 must say whose fault the end of play is
/// (`operator_fault` or `force_majeure`): the refund obligation depends on it (001 Art. 15, 21).
pub const CAUSE_REQUIRED: &str = "cause_required";
/// A money amount is above Floor's bound, or the tournament's most money in all would not fit
/// (`docs/reliability.md`).
pub const AMOUNT_TOO_LARGE: &str = "amount_too_large";
/// A chip count is above Floor's bound, or the tournament's most chips in play would not fit.
pub const CHIPS_TOO_LARGE: &str = "chips_too_large";
/// A currency code that is not an ISO 4217 currency.
pub const UNKNOWN_CURRENCY: &str = "unknown_currency";
/// The start (or the registration opening) is not after the command's time.
pub const START_IN_THE_PAST: &str = "start_in_the_past";
/// A schedule's starts come closer together than the minimum interval.
pub const SCHEDULE_TOO_FREQUENT: &str = "schedule_too_frequent";
// Protocol edges.
/// The command id was used before for a different request (another verb, aggregate or
/// content): nothing was stored. A retry must resend exactly what was sent first; a new
/// command needs a new id.
pub const COMMAND_ID_REUSED: &str = "command_id_reused";
/// No such HTTP path.
pub const NOT_FOUND: &str = "not_found";
/// The HTTP path exists, the method is not answered there.
pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";

// Poison commits (issue 17).
/// The aggregate has a stored commit this build cannot decode or apply: it is set aside (no
/// command is decided on it) until an operator has looked; every other aggregate is served.
pub const AGGREGATE_SET_ASIDE: &str = "aggregate_set_aside";
// Table reports (issue 19).
/// A report's body names another tournament or table than the subject it was published on
/// (`floor.table.<tournament>.<table>.out`): it is recorded as rejected on the subject's table
/// and applied nowhere.
pub const SUBJECT_MISMATCH: &str = "subject_mismatch";
/// A message on a table's report subject is not a report: not JSON, an unknown report type, a
/// missing field, a negative or fractional number. Recorded as rejected on the subject's table.
pub const MALFORMED_REPORT: &str = "malformed_report";
/// A `hand_finished` for a hand the table never started (no `hand_started` was accepted).
pub const HAND_NOT_STARTED: &str = "hand_not_started";
/// The tournament is over or cancelled (issue 33): its clock has stopped and no director command
/// changes it.
pub const CLOCK_STOPPED: &str = "clock_stopped";
// Hand-for-hand on the bubble (issue 20).
/// The tournament is not in hand-for-hand (not started yet, or over): nothing to release, excuse,
/// pause or stop.
pub const NOT_IN_HAND_FOR_HAND: &str = "not_in_hand_for_hand";
/// Hand-for-hand is running already.
pub const HAND_FOR_HAND_RUNNING: &str = "hand_for_hand_running";
/// A `hand_finished` for a hand-for-hand hand that was not released to that table (or a hand
/// number other than the one it was dealt).
pub const HAND_NOT_RELEASED: &str = "hand_not_released";
/// A table dealt while held: it finished its hand-for-hand hand and the next is not released.
pub const TABLE_HELD: &str = "table_held";
/// The hand cannot be released: tables still owe the current hand.
pub const HAND_IN_PROGRESS: &str = "hand_in_progress";
/// The director paused hand-for-hand: no hand is released until it resumes.
pub const HAND_FOR_HAND_PAUSED: &str = "hand_for_hand_paused";
/// The table owes nothing for the current hand (it finished, or was excused already).
pub const TABLE_NOT_OWED: &str = "table_not_owed";
// Bounties (issue 21).
/// A bounty share is outside the range the rule profile allows (004 §4.36.15: knockout 10–100 %,
/// progressive knockout 30–100 %, the PKO eliminator's cash share 25–75 %).
pub const BOUNTY_SHARE_OUT_OF_RANGE: &str = "bounty_share_out_of_range";
/// A mystery bounty's envelopes do not add up to the whole bounty pool (or there are none).
pub const MYSTERY_VALUES_DO_NOT_SUM: &str = "mystery_values_do_not_sum";
/// The target of a target bounty has no entry in the tournament.
pub const TARGET_NOT_REGISTERED: &str = "target_not_registered";
/// An elimination report that does not fit the bounties' field: an eliminator who is not a live
/// entry, the eliminated entry among its own eliminators, a winner named twice in one pot, a best
/// high hand that won none of the pots.
pub const INVALID_KNOCKOUT: &str = "invalid_knockout";
/// A winner's bounty was asked for while other entries are still in.
pub const WINNER_NOT_LAST: &str = "winner_not_last";
/// The tournament is won and its bounty pool paid out: nothing more moves.
pub const BOUNTIES_SETTLED: &str = "bounties_settled";
/// A `hand_started` puts the button on a seat where no player of the table sits.
pub const BUTTON_ON_EMPTY_SEAT: &str = "button_on_empty_seat";
/// An `instruction_applied` names a sequence Floor never sent to that table.
pub const UNKNOWN_INSTRUCTION: &str = "unknown_instruction";
/// An `instruction_applied` confirms an instruction that takes no confirmation: only
/// `seat_player`, `remove_player` and `add_chips` are confirmed (`docs/table-servers.md`).
pub const INSTRUCTION_NOT_CONFIRMED: &str = "instruction_not_confirmed";
// Abort: suspend, resume, cancel (issue 22).
/// Every entry is out: nothing to cancel, the tournament is decided.
pub const NOBODY_REMAINING: &str = "nobody_remaining";
/// Two entries of a cancellation snapshot have the same number.
pub const DUPLICATE_ENTRY: &str = "duplicate_entry";
/// A purchase's lines do not add up (paid in ≠ fee + prize pool, or a bounty part larger than the
/// prize-pool line).
pub const LEDGER_DOES_NOT_ADD_UP: &str = "ledger_does_not_add_up";
/// Bounty cash paid out exceeds what was paid in, or the bounties on heads exceed the pool.
pub const BOUNTIES_DO_NOT_ADD_UP: &str = "bounties_do_not_add_up";
/// The payout table is not contiguous from place 1, or pays a place more than a better one.
pub const INVALID_PRIZE_TABLE: &str = "invalid_prize_table";
/// An eliminated entry's place is not below every entry still in, or beyond the field.
pub const INVALID_PLACE: &str = "invalid_place";
/// The profile does not offer this cancellation method (a rulebook with one fixed formula).
pub const METHOD_NOT_OFFERED: &str = "method_not_offered";
/// The method is planned and not built yet (ICM: exact ICM is being written in floor-rules).
pub const NOT_YET_AVAILABLE: &str = "not_yet_available";
/// The statements would not balance the books (a bug: nothing is recorded).
pub const BOOKS_DO_NOT_BALANCE: &str = "books_do_not_balance";
/// The tournament is suspended already.
pub const ALREADY_SUSPENDED: &str = "already_suspended";
/// Resume without a suspension.
pub const NOT_SUSPENDED: &str = "not_suspended";
/// Play is suspended: registration holds (no entry sold or refunded), rebuys and add-ons hold,
/// and the clock stands (a director's resume, skip, end of break or start: issue 33) until the
/// director resumes play. A retry after the resume is answered as the first try would have been.
pub const TOURNAMENT_SUSPENDED: &str = "tournament_suspended";
/// A time earlier than the suspension it ends.
pub const BEFORE_SUSPENSION: &str = "before_suspension";
/// The tournament has not started: suspend and the abort service's cancel are for a tournament in
/// play (a tournament not started is cancelled through registration, every entry refunded).
pub const TOURNAMENT_NOT_STARTED: &str = "tournament_not_started";
/// The cancellation snapshot cannot be built from the log yet for this tournament (a part Floor
/// does not read yet, e.g. bounties, or an elimination payouts has not placed yet): nothing is
/// recorded rather than a guess.
pub const SNAPSHOT_UNAVAILABLE: &str = "snapshot_unavailable";
/// The `cancelled` event (snapshot and statements) would exceed what one stored message holds.
pub const CANCELLATION_TOO_LARGE: &str = "cancellation_too_large";
/// Statements asked for a tournament that was not cancelled.
pub const NOT_CANCELLED: &str = "not_cancelled";
/// The tournament is over (won, or cancelled before its start): nothing to suspend or cancel.
pub const TOURNAMENT_FINISHED: &str = "tournament_finished";
// ICM and deals (issue 22).
/// ICM was asked for without any player.
pub const ICM_NO_PLAYERS: &str = "icm_no_players";
/// A stack of zero chips was given to ICM: a player without chips is out, not in the model.
pub const ICM_ZERO_STACK: &str = "icm_zero_stack";
/// ICM was asked for more places (prizes) than there are players.
pub const ICM_MORE_PLACES_THAN_PLAYERS: &str = "icm_more_places_than_players";
/// A prize given to ICM is larger than the prize of the place above it.
pub const ICM_PRIZES_NOT_DESCENDING: &str = "icm_prizes_not_descending";
/// The prizes given to ICM add up to more than 64 bits hold.
pub const ICM_PRIZES_OVERFLOW: &str = "icm_prizes_overflow";
/// The field is too large for the ICM method asked for (permutations: 10 players, subsets: 20,
/// the race: a million players × places).
pub const ICM_FIELD_TOO_LARGE: &str = "icm_field_too_large";
/// A deal needs at least two remaining players.
pub const DEAL_NEEDS_TWO_PLAYERS: &str = "deal_needs_two_players";
/// The same player is named twice in a deal.
pub const DEAL_DUPLICATE_PLAYER: &str = "deal_duplicate_player";
/// A player in a deal has no chips (a player without chips is out).
pub const DEAL_ZERO_STACK: &str = "deal_zero_stack";
/// More unpaid prizes than remaining players: each prize needs a player to take it.
pub const DEAL_MORE_PRIZES_THAN_PLAYERS: &str = "deal_more_prizes_than_players";
/// An unpaid prize is larger than the prize of the place above it.
pub const DEAL_PRIZES_NOT_DESCENDING: &str = "deal_prizes_not_descending";
/// The unpaid prizes add up to more than 64 bits hold.
pub const DEAL_POOL_OVERFLOW: &str = "deal_pool_overflow";
/// The amount left to play for is below the minimum share of the remaining pool or above what
/// first place pays over second.
pub const DEAL_LEFT_TO_PLAY_FOR_OUT_OF_RANGE: &str = "deal_left_to_play_for_out_of_range";
/// A custom deal's amounts do not add up to the money being dealt.
pub const DEAL_AMOUNTS_DO_NOT_SUM: &str = "deal_amounts_do_not_sum";
/// A custom deal does not give exactly one amount per remaining player.
pub const DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS: &str = "deal_amounts_do_not_match_players";
/// A deal was asked for before the payout table is locked: the prizes could still change.
pub const DEAL_TABLE_NOT_LOCKED: &str = "deal_table_not_locked";
/// The player is not a remaining player of the tournament (out, or never in): only remaining
/// players propose, accept or reject a deal.
pub const NOT_REMAINING: &str = "not_remaining";
/// A deal is already under discussion: accept or reject it first.
pub const DEAL_ALREADY_PROPOSED: &str = "deal_already_proposed";
/// The remaining players have agreed a deal already: its amounts are paid.
pub const DEAL_ALREADY_AGREED: &str = "deal_already_agreed";
/// No deal is under discussion: there is nothing to accept or reject.
pub const NO_DEAL_PROPOSED: &str = "no_deal_proposed";
/// The player has accepted this deal already.
pub const DEAL_ALREADY_ACCEPTED: &str = "deal_already_accepted";
/// A deal would pay a player less than the prize their place already guarantees (the next
/// unpaid prize, which the next player out wins whatever happens).
pub const DEAL_BELOW_GUARANTEED_PRIZE: &str = "deal_below_guaranteed_prize";
/// A satellite's target tournament does not exist.
pub const UNKNOWN_TARGET: &str = "unknown_target";
/// A satellite's target has started, finished or been cancelled: no seat can be won for it.
pub const TARGET_NOT_OPEN: &str = "target_not_open";
/// A satellite's seat value is not what an entry to its target costs.
pub const SEAT_VALUE_MISMATCH: &str = "seat_value_mismatch";
/// A satellite costs as much as its target or more.
pub const SATELLITE_COSTS_TOO_MUCH: &str = "satellite_costs_too_much";
/// No such ticket.
pub const UNKNOWN_TICKET: &str = "unknown_ticket";
/// The ticket is spent, or being spent.
pub const TICKET_SPENT: &str = "ticket_spent";
/// The ticket belongs to another player.
pub const TICKET_NOT_YOURS: &str = "ticket_not_yours";
/// The ticket is worth another amount than an entry to this tournament costs.
pub const TICKET_VALUE_MISMATCH: &str = "ticket_value_mismatch";
/// A lottery prize table's probabilities do not sum to one (1,000,000 per million).
pub const LOTTERY_ODDS_NOT_ONE: &str = "lottery_odds_not_one";
/// A lottery prize table's expected prize pool is more than the players pay in.
pub const LOTTERY_PAYS_MORE_THAN_IN: &str = "lottery_pays_more_than_in";
/// The ticket is for another tournament: it pays its target, and another tournament of its
/// value only where its satellite's terms allow it.
pub const TICKET_WRONG_TOURNAMENT: &str = "ticket_wrong_tournament";
/// The ticket is void: its seat was passed down to the next finisher of its satellite.
pub const TICKET_PASSED_DOWN: &str = "ticket_passed_down";
/// The ticket's expiry has come: it can no longer be spent or converted.
pub const TICKET_EXPIRED: &str = "ticket_expired";
/// The ticket cannot be converted to cash: its satellite does not allow it, or it is not held.
pub const TICKET_NOT_CONVERTIBLE: &str = "ticket_not_convertible";
/// The player is still in another Day 1 of the same flight, which allows one Day 1 at a time
/// (issue 36).
pub const IN_ANOTHER_DAY1: &str = "in_another_day1";
