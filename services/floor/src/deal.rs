//! `floor deal propose|accept|reject|show`: deals through the payouts service.
//!
//! Amounts are typed in the tournament's currency (`123.45`) and sent in minor units: the
//! currency, and so its minor digits (ISO 4217), comes from the tournament's books. `show`
//! prints every amount as players read money (`floor_lobby::money::format`).

use crate::cli::{DealCommand, DealMethodArg};
use crate::director::{Director, Failure};
use crate::exit::Exit;
use floor_events::payouts::{verbs, Books, BooksRequest, CustomAmount, DealAnswer, DealMethod, DealStatus, ProposeDeal};
use floor_events::{subjects, CommandId, Currency, EntryNo, Money, PlayerId, TournamentId};
use floor_lobby::money::{format, minor_digits};

/// What a deal command answers: the reply as JSON (propose, accept, reject) or lines to print
/// (`show`).
pub enum Answer {
    /// The service's reply.
    Json(serde_json::Value),
    /// Text.
    Lines(Vec<String>),
}

/// Runs one `floor deal` command.
///
/// # Errors
/// Bad arguments (usage), the service's refusal, or no answer.
pub async fn run(director: &Director, command: &DealCommand) -> Result<Answer, Failure> {
    let payouts = subjects::service::PAYOUTS;
    match command {
        DealCommand::Propose { tournament, method, amounts, left_to_play_for, ends_tournament, player } => {
            let tournament_id = TournamentId(*tournament);
            let currency = currency(director, tournament_id).await?;
            let method = match method {
                DealMethodArg::Icm => DealMethod::Icm,
                DealMethodArg::ChipChop => DealMethod::ChipChop,
                DealMethodArg::Equal => DealMethod::Equal,
                DealMethodArg::Custom => DealMethod::Custom { amounts: parse_amounts(amounts, currency).map_err(usage)? },
            };
            if !matches!(method, DealMethod::Custom { .. }) && !amounts.is_empty() {
                return Err(usage("--amounts goes with --method custom".into()));
            }
            let left_to_play_for = left_to_play_for.as_deref().map(|a| parse_money(a, currency)).transpose().map_err(usage)?;
            let request = ProposeDeal {
                command_id: CommandId::new(),
                tournament_id,
                player: player_id(player)?,
                method,
                left_to_play_for,
                ends_tournament: *ends_tournament,
            };
            Ok(Answer::Json(director.request(payouts, verbs::PROPOSE_DEAL.name(), &request).await?))
        }
        DealCommand::Accept { tournament, player } | DealCommand::Reject { tournament, player } => {
            let verb = if matches!(command, DealCommand::Accept { .. }) { verbs::ACCEPT_DEAL.name() } else { verbs::REJECT_DEAL.name() };
            let request = DealAnswer { command_id: CommandId::new(), tournament_id: TournamentId(*tournament), player: player_id(player)? };
            Ok(Answer::Json(director.request(payouts, verb, &request).await?))
        }
        DealCommand::Show { tournament } => {
            let request = floor_events::payouts::DealQuery { tournament_id: TournamentId(*tournament) };
            let status: DealStatus = director.request(payouts, verbs::DEAL.name(), &request).await?;
            Ok(Answer::Lines(show(&status)))
        }
    }
}

async fn currency(director: &Director, tournament_id: TournamentId) -> Result<Currency, Failure> {
    let books: Books = director.request(subjects::service::PAYOUTS, verbs::BOOKS.name(), &BooksRequest { tournament_id }).await?;
    Ok(books.currency)
}

fn usage(message: String) -> Failure {
    Failure { message, exit: Exit::Usage }
}

fn player_id(name: &str) -> Result<PlayerId, Failure> {
    PlayerId::parse(name).map_err(|m| usage(format!("player: {m}")))
}

/// `123.45` in `currency`'s minor units: at most as many decimals as the currency has.
///
/// # Errors
/// Not a non-negative decimal, too many decimals, or too large for 64 bits.
pub fn parse_money(text: &str, currency: Currency) -> Result<Money, String> {
    let digits = minor_digits(currency);
    let bad = || format!("{text:?} is not an amount in {currency} (like 123.{})", "4".repeat(digits as usize));
    let (whole, fraction) = text.trim().split_once('.').unwrap_or((text.trim(), ""));
    let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) || fraction.len() > digits as usize {
        return Err(bad());
    }
    let padded = format!("{fraction:0<width$}", width = digits as usize);
    let amount = whole
        .parse::<u64>()
        .ok()
        .and_then(|w| w.checked_mul(10u64.pow(digits)))
        .and_then(|w| w.checked_add(if padded.is_empty() { 0 } else { padded.parse::<u64>().ok()? }))
        .ok_or_else(bad)?;
    Ok(Money::new(amount, currency))
}

/// `p1=123.45` (or `p1#4=123.45`, entry 4 of player p1) per custom amount.
///
/// # Errors
/// A part without `=`, a bad player, entry or amount.
pub fn parse_amounts(parts: &[String], currency: Currency) -> Result<Vec<CustomAmount>, String> {
    parts
        .iter()
        .map(|part| {
            let (who, amount) = part.split_once('=').ok_or_else(|| format!("{part:?}: write player=amount, like p1=123.45"))?;
            let (player, entry) = match who.split_once('#') {
                Some((player, entry)) => {
                    (player, Some(EntryNo(entry.parse().map_err(|_| format!("{part:?}: entry {entry:?} is not a number"))?)))
                }
                None => (who, None),
            };
            let player = PlayerId::parse(player.trim()).map_err(|m| format!("{part:?}: {m}"))?;
            Ok(CustomAmount { player, entry, amount: parse_money(amount, currency)? })
        })
        .collect()
}

/// The deal as lines: its stage and method, one line per entry (chips, amount), what is left
/// to play for, and who accepted or is awaited.
pub fn show(d: &DealStatus) -> Vec<String> {
    let money = |amount: u64| format(Money::new(amount, d.currency));
    let stage = serde_json::to_value(d.stage).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    let method = serde_json::to_value(d.method).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    let mut lines = vec![format!("deal {stage} ({method}), proposed by {}: {} unpaid", d.proposer, money(d.pool))];
    let width = d.shares.iter().map(|s| s.player.to_string().len()).max().unwrap_or(0);
    for s in &d.shares {
        let answer = if d.accepted.contains(&s.player) { "accepted" } else { "awaited" };
        lines.push(format!(
            "  {:<width$}  entry {:>4}  {:>12} chips  {:>14}  {answer}",
            s.player.to_string(),
            s.entry.0,
            floor_lobby::money::grouped(s.chips),
            money(s.amount)
        ));
    }
    if d.left_to_play_for > 0 {
        lines.push(format!("  left to play for: {} (to the winner, on top of their amount)", money(d.left_to_play_for)));
    }
    if d.ends_tournament {
        lines.push("  ends the tournament once agreed: each paid the amount above, placed by chips".into());
    }
    if !d.waiting_for.is_empty() {
        let waiting: Vec<String> = d.waiting_for.iter().map(ToString::to_string).collect();
        lines.push(format!("  waiting for: {}", waiting.join(", ")));
    }
    lines
}

/// The one money rule of the CLI (README, "Money"): people read and type amounts in the
/// currency's units with its decimals (`€22.00`); JSON (`--json`) carries minor units with the
/// currency. The books (`floor tournament books`) as lines for people: every amount formatted,
/// the counts and flags as they are. `None` if the reply is not the books.
pub fn books_lines(books: &serde_json::Value) -> Option<Vec<String>> {
    let object = books.as_object()?;
    let currency: Currency = serde_json::from_value(object.get("currency")?.clone()).ok()?;
    const COUNTS: [&str; 3] = ["entries", "rebuys", "add_ons"];
    let mut lines = vec![format!(
        "books of {} ({currency}): {}",
        object.get("tournament_id").and_then(|t| t.as_str()).unwrap_or("?"),
        if object.get("balanced").and_then(serde_json::Value::as_bool) == Some(true) { "balanced" } else { "NOT balanced" }
    )];
    for (field, value) in object {
        let label = field.replace('_', " ");
        match value {
            serde_json::Value::Number(n) if COUNTS.contains(&field.as_str()) => lines.push(format!("  {label:<16} {n}")),
            serde_json::Value::Number(n) => {
                let amount = n.as_u64()?;
                lines.push(format!("  {label:<16} {}", format(Money { amount, currency })));
            }
            serde_json::Value::Bool(b) if field != "balanced" => lines.push(format!("  {label:<16} {}", if *b { "yes" } else { "no" })),
            serde_json::Value::String(why) if field != "tournament_id" && field != "currency" => lines.push(format!("  {label:<16} {why}")),
            _ => {}
        }
    }
    Some(lines)
}

/// `floor register`'s answer for people: `entry #3 for alice: paid €22.00 (fee €2.00, €20.00
/// to the prize pool)`. `None` if the reply is not an entry.
pub fn registered_line(registered: &serde_json::Value) -> Option<String> {
    let ledger = registered.get("ledger")?;
    let money = |field: &str| serde_json::from_value::<Money>(ledger.get(field)?.clone()).ok().map(format);
    Some(format!(
        "entry #{} for {}: paid {} (fee {}, {} to the prize pool)",
        registered.get("entry")?,
        registered.get("player")?.as_str()?,
        money("paid_in")?,
        money("fee")?,
        money("prize_pool")?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eur() -> Currency {
        Currency::EUR
    }

    #[test]
    fn amounts_are_read_in_the_currencys_minor_units() {
        assert_eq!(parse_money("123.45", eur()), Ok(Money::new(12_345, eur())));
        assert_eq!(parse_money("100", eur()), Ok(Money::new(10_000, eur())));
        assert_eq!(parse_money("0.5", eur()), Ok(Money::new(50, eur())));
        let yen = Currency::parse("JPY").unwrap();
        assert_eq!(parse_money("500", yen), Ok(Money::new(500, yen)));
        for bad in ["", ".5", "1.234", "-1.00", "1,00", "12a", "184467440737095516.16"] {
            assert!(parse_money(bad, eur()).is_err(), "{bad:?}");
        }
        assert!(parse_money("1.5", yen).is_err(), "no minor units in yen");
    }

    #[test]
    fn custom_amounts_name_a_player_and_optionally_an_entry() {
        let parts = vec!["p1=123.45".to_string(), "p2#4=6.00".to_string()];
        let amounts = parse_amounts(&parts, eur()).unwrap();
        assert_eq!(amounts[0], CustomAmount { player: PlayerId::parse("p1").unwrap(), entry: None, amount: Money::new(12_345, eur()) });
        assert_eq!(amounts[1].entry, Some(EntryNo(4)));
        assert!(parse_amounts(&["p1".to_string()], eur()).is_err());
        assert!(parse_amounts(&["p1#x=1".to_string()], eur()).is_err());
    }

    #[test]
    fn show_prints_each_players_amount_as_money_and_who_is_awaited() {
        use floor_events::payouts::{DealMethodKind, DealShare, DealStage};
        let p = |name: &str| PlayerId::parse(name).unwrap();
        let share = |entry: u32, name: &str, chips: u64, amount: u64| DealShare { entry: EntryNo(entry), player: p(name), chips, amount };
        let status = DealStatus {
            tournament_id: TournamentId(uuid::Uuid::nil()),
            currency: eur(),
            stage: DealStage::Proposed,
            proposer: p("ann"),
            method: DealMethodKind::Icm,
            shares: vec![share(1, "ann", 20_000, 150_050), share(3, "cat", 8_000, 89_950)],
            left_to_play_for: 10_000,
            pool: 250_000,
            accepted: vec![p("ann")],
            waiting_for: vec![p("cat")],
            ends_tournament: false,
        };
        let lines = show(&status);
        assert_eq!(lines[0], "deal proposed (icm), proposed by ann: €2,500.00 unpaid");
        assert!(
            lines[1].contains("ann")
                && lines[1].contains("20,000 chips")
                && lines[1].contains("€1,500.50")
                && lines[1].ends_with("accepted")
        );
        assert!(lines[2].contains("€899.50") && lines[2].ends_with("awaited"), "{}", lines[2]);
        assert_eq!(lines[3], "  left to play for: €100.00 (to the winner, on top of their amount)");
        assert_eq!(lines[4], "  waiting for: cat");
    }

    #[test]
    fn the_books_and_an_entry_are_shown_in_the_currencys_units() {
        let books = serde_json::json!({"tournament_id": "t1", "currency": "EUR", "entries": 12, "paid_in": 26400, "fees": 2400,
            "prize_pool": 24000, "finished": false, "balanced": true});
        let lines = books_lines(&books).expect("books");
        assert_eq!(lines[0], "books of t1 (EUR): balanced");
        assert!(lines.iter().any(|l| l.contains("entries") && l.ends_with(" 12")), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("paid in") && l.ends_with("€264.00")), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("fees") && l.ends_with("€24.00")), "{lines:?}");
        let yen = serde_json::json!({"tournament_id": "t2", "currency": "JPY", "paid_in": 5000, "balanced": false});
        assert!(books_lines(&yen).expect("books").iter().any(|l| l.ends_with("¥5,000")));
        let entry = serde_json::json!({"entry": 3, "player": "alice", "ledger": {
            "paid_in": {"amount": 2200, "currency": "EUR"}, "fee": {"amount": 200, "currency": "EUR"},
            "prize_pool": {"amount": 2000, "currency": "EUR"}}});
        assert_eq!(registered_line(&entry).expect("entry"), "entry #3 for alice: paid €22.00 (fee €2.00, €20.00 to the prize pool)");
    }
}
