//! The director's commands to a running platform: the clock, the bubble, bounties, schedules
//! and a cancellation, each one request to its service with the reply printed.

use super::*;

pub(crate) async fn director(cli: &Cli) -> Result<Director, Failure> {
    Director::connect(&cli.data).await
}

/// `floor tournament cancel`: through registration before the start (every entry refunded);
/// once registration answers `tournament_started`, through the abort service (statements by
/// the profile's rule). When registration answers `aggregate_set_aside` (its log holds a
/// commit no reader can apply), through the abort service too: in play as ever, before the
/// start with every entry refunded (`docs/abort.md`, "Before the start").
pub(crate) async fn cancel_tournament(
    cli: &Cli,
    tournament_id: TournamentId,
    reason: &str,
    method: &str,
    cause: Option<&str>,
) -> Result<(), Failure> {
    let method: abort::statement::Method = serde_json::from_value(Value::String(method.replace('-', "_")))
        .map_err(|_| Failure { message: format!("--method {method}: rulebook, rollback, roll_forward or icm"), exit: Exit::Usage })?;
    let cause = match cause {
        None => None,
        Some(c) => Some(
            abort::CancelCause::parse(c)
                .ok_or_else(|| Failure { message: format!("--cause {c}: operator-fault or force-majeure"), exit: Exit::Usage })?,
        ),
    };
    let director = director(cli).await?;
    let before = CancelTournament { command_id: CommandId::new(), tournament_id, reason: reason.to_owned() };
    let refused = match director.request(subjects::service::REGISTRATION, registration::verbs::CANCEL_TOURNAMENT.name(), &before).await {
        Ok(reply) => return print_reply(reply),
        Err(refused) => refused,
    };
    let answered = |code: &str| refused.message.starts_with(&format!("{code}:"));
    // Started, set aside, or a flight's Day 2 holding its Day 1s' pools (issue 36): the abort
    // service's to cancel.
    if ![codes::TOURNAMENT_STARTED, codes::AGGREGATE_SET_ASIDE, codes::CANCEL_THROUGH_ABORT].iter().any(|c| answered(c)) {
        return Err(refused);
    }
    let after = abort::Cancel { command_id: CommandId::new(), tournament_id, reason: reason.to_owned(), method, cause };
    print_reply(director.request(subjects::service::ABORT, abort::verbs::CANCEL.name(), &after).await?)
}

/// `floor tournament statement`: one player's statement, or every statement, asked page by
/// page (a reply is one message) and printed as one reply.
pub(crate) async fn statements(cli: &Cli, tournament_id: TournamentId, player: Option<PlayerId>) -> Result<(), Failure> {
    let director = director(cli).await?;
    let director = &director;
    let all = director::every_statement(tournament_id, player, |request| async move {
        director.request::<_, abort::Statements>(subjects::service::ABORT, abort::verbs::STATEMENT.name(), &request).await
    })
    .await?;
    print_reply(serde_json::to_value(all).expect("statements serialize"))
}

pub(crate) fn print_reply(value: Value) -> Result<(), Failure> {
    say!("{}", serde_json::to_string_pretty(&value).expect("json"));
    Ok(())
}

pub(crate) async fn clock_command(cli: &Cli, command: &ClockCommand) -> Result<(), Failure> {
    use clock::verbs;
    let command_id = CommandId::new();
    let t = |id: &uuid::Uuid| TournamentId(*id);
    let (verb, body) = match command {
        ClockCommand::Structure { tournament, preset, file } => {
            let structure = match (preset, file) {
                (Some(p), _) => self::preset(*p),
                (None, Some(file)) => BlindStructure::Custom(director::read_toml(file)?),
                (None, None) => unreachable!("clap requires one"),
            };
            (verbs::SET_STRUCTURE.name(), serde_json::to_value(clock::SetStructure { command_id, tournament_id: t(tournament), structure }))
        }
        ClockCommand::Start { tournament } => {
            (verbs::START.name(), serde_json::to_value(clock::ClockRequest { command_id, tournament_id: t(tournament) }))
        }
        ClockCommand::Pause { tournament, reason } => (
            verbs::PAUSE.name(),
            serde_json::to_value(clock::PauseClock { command_id, tournament_id: t(tournament), reason: reason.clone() }),
        ),
        ClockCommand::Resume { tournament } => {
            (verbs::RESUME.name(), serde_json::to_value(clock::ClockRequest { command_id, tournament_id: t(tournament) }))
        }
        ClockCommand::AddTime { tournament, seconds } => (
            verbs::ADJUST_TIME.name(),
            serde_json::to_value(clock::AdjustTime { command_id, tournament_id: t(tournament), seconds: *seconds }),
        ),
        ClockCommand::Skip { tournament, level } => (
            verbs::SKIP_TO_LEVEL.name(),
            serde_json::to_value(clock::SkipToLevel { command_id, tournament_id: t(tournament), level: *level }),
        ),
        ClockCommand::EndBreak { tournament } => {
            (verbs::END_BREAK.name(), serde_json::to_value(clock::ClockRequest { command_id, tournament_id: t(tournament) }))
        }
    };
    let body = body.expect("request serializes");
    print_reply(director(cli).await?.request(subjects::service::CLOCK, verb, &body).await?)
}

pub(crate) async fn bubble_command(cli: &Cli, command: &BubbleCommand) -> Result<(), Failure> {
    use floor_events::bubble::{verbs, BubbleRequest, PauseBubble, ReleaseWithout};
    let command_id = CommandId::new();
    let request = |id: &uuid::Uuid| serde_json::to_value(BubbleRequest { command_id, tournament_id: TournamentId(*id) });
    let (verb, body) = match command {
        BubbleCommand::Start { tournament } => (verbs::START.name(), request(tournament)),
        BubbleCommand::Stop { tournament } => (verbs::STOP.name(), request(tournament)),
        BubbleCommand::Resume { tournament } => (verbs::RESUME.name(), request(tournament)),
        BubbleCommand::ReleaseWithout { tournament, tables } => (
            verbs::RELEASE_WITHOUT.name(),
            serde_json::to_value(ReleaseWithout { command_id, tournament_id: TournamentId(*tournament), tables: tables.clone() }),
        ),
        BubbleCommand::Pause { tournament, reason } => (
            verbs::PAUSE.name(),
            serde_json::to_value(PauseBubble { command_id, tournament_id: TournamentId(*tournament), reason: reason.clone() }),
        ),
    };
    let body = body.expect("request serializes");
    print_reply(director(cli).await?.request(subjects::service::BUBBLE, verb, &body).await?)
}

pub(crate) async fn bounty_command(cli: &Cli, command: &BountyCommand) -> Result<(), Failure> {
    use floor_events::bounties::{verbs, DirectorRequest, NameTarget};
    let command_id = CommandId::new();
    let (verb, body) = match command {
        BountyCommand::NameTarget { tournament, player, public } => {
            let player = parse_player(player)?;
            let request = NameTarget { command_id, tournament_id: TournamentId(*tournament), player, public: *public };
            (verbs::NAME_TARGET.name(), serde_json::to_value(request))
        }
        BountyCommand::StartMysteryStage { tournament } => (
            verbs::START_MYSTERY_STAGE.name(),
            serde_json::to_value(DirectorRequest { command_id, tournament_id: TournamentId(*tournament) }),
        ),
    };
    let body = body.expect("request serializes");
    print_reply(director(cli).await?.request(subjects::service::BOUNTIES, verb, &body).await?)
}

pub(crate) async fn schedule_command(cli: &Cli, command: &ScheduleCommand) -> Result<(), Failure> {
    use schedule::verbs;
    let director = director(cli).await?;
    match command {
        ScheduleCommand::Add { file } => {
            let request = AddTemplate { command_id: CommandId::new(), template_id: None, template: director::read_toml(file)? };
            print_reply(director.request(subjects::service::SCHEDULER, verbs::ADD_TEMPLATE.name(), &request).await?)
        }
        ScheduleCommand::List => {
            let list: Vec<Value> =
                director.request(subjects::service::SCHEDULER, verbs::LIST_TEMPLATES.name(), &ListTemplates::default()).await?;
            if list.is_empty() {
                eprintln!("no templates yet: floor schedule add --file examples/schedules/daily-vienna.toml");
            }
            list.iter().for_each(|t| say!("{}", director::template_line(t)));
            Ok(())
        }
        ScheduleCommand::Remove { template } => {
            let request = RemoveTemplate { command_id: CommandId::new(), template_id: *template };
            print_reply(director.request(subjects::service::SCHEDULER, verbs::REMOVE_TEMPLATE.name(), &request).await?)
        }
    }
}

/// `floor ticket …` (issue 36): the satellites service's `tickets`, `satellite` and
/// `spend_ticket`, answered in lines (`--json`: the service's answer as it is).
pub(crate) async fn ticket_command(cli: &Cli, command: &TicketCommand) -> Result<(), Failure> {
    use floor_events::satellites::{verbs, SatelliteOf, SatelliteView, SpendTicket, TicketRef, TicketView, TicketsOf};
    let usage = |m: String| Failure { message: m, exit: Exit::Usage };
    let ticket_ref = |text: &str| text.parse::<TicketRef>().map_err(|e| usage(format!("ticket {e} (as `floor ticket list` prints it)")));
    let service = subjects::service::SATELLITES;
    match command {
        TicketCommand::List { player, json } => {
            let request = TicketsOf { player: parse_player(player)? };
            let tickets: Vec<TicketView> = director(cli).await?.request(service, verbs::TICKETS.name(), &request).await?;
            if *json {
                return print_reply(serde_json::to_value(&tickets).expect("tickets serialize"));
            }
            if tickets.is_empty() {
                eprintln!("{player} holds no ticket");
            }
            tickets.iter().for_each(|t| say!("{}", director::ticket_line(t)));
            Ok(())
        }
        TicketCommand::Show { ticket, json } => {
            // `<satellite>/<entry>`: that ticket; `<satellite>` alone: the whole satellite.
            let (satellite, entry) = match ticket.split_once('/') {
                Some(_) => {
                    let t = ticket_ref(ticket)?;
                    (t.satellite, Some(t))
                }
                None => (
                    uuid::Uuid::parse_str(ticket)
                        .map(TournamentId)
                        .map_err(|e| usage(format!("{ticket:?}: a satellite's id or <satellite id>/<entry>: {e}")))?,
                    None,
                ),
            };
            let request = SatelliteOf { tournament_id: satellite };
            let view: SatelliteView = director(cli).await?.request(service, verbs::SATELLITE.name(), &request).await?;
            match entry {
                None if *json => print_reply(serde_json::to_value(&view).expect("satellite serializes")),
                None => {
                    director::satellite_lines(&view).iter().for_each(|l| say!("{l}"));
                    Ok(())
                }
                Some(wanted) => {
                    let Some(found) = view.tickets.iter().find(|t| t.ticket == wanted) else {
                        return Err(Failure {
                            message: format!(
                                "{}: no ticket {wanted}: satellite {satellite} issued {} (floor ticket show {satellite} lists them)",
                                codes::UNKNOWN_TICKET,
                                view.tickets.len()
                            ),
                            exit: Exit::Rejected,
                        });
                    };
                    match json {
                        true => print_reply(serde_json::to_value(found).expect("ticket serializes")),
                        false => {
                            say!("{}", director::ticket_line(found));
                            Ok(())
                        }
                    }
                }
            }
        }
        TicketCommand::Spend { ticket, player, tournament } => {
            let request = SpendTicket {
                command_id: CommandId::new(),
                ticket: ticket_ref(ticket)?,
                player: parse_player(player)?,
                tournament_id: TournamentId(*tournament),
            };
            let spent: TicketView = director(cli).await?.request(service, verbs::SPEND_TICKET.name(), &request).await.map_err(|f| {
                let hint = match f.message.split(':').next() {
                    Some(codes::TICKET_NOT_YOURS | codes::UNKNOWN_TICKET) => format!(" (floor ticket list --player {player} lists theirs)"),
                    Some(codes::TICKET_VALUE_MISMATCH) => {
                        " (a ticket enters its target, or a tournament whose entry costs its value)".into()
                    }
                    _ => String::new(),
                };
                Failure { message: format!("{}{hint}", f.message), ..f }
            })?;
            say!("{}", director::ticket_line(&spent));
            Ok(())
        }
        TicketCommand::Convert { ticket, player } => {
            let request = floor_events::satellites::ConvertTicket {
                command_id: CommandId::new(),
                ticket: ticket_ref(ticket)?,
                player: parse_player(player)?,
            };
            let converted: TicketView = director(cli).await?.request(service, verbs::CONVERT_TICKET.name(), &request).await?;
            say!("{}", director::ticket_line(&converted));
            Ok(())
        }
        TicketCommand::Expire { satellite, as_of } => {
            let request = floor_events::satellites::ExpireTickets {
                command_id: CommandId::new(),
                tournament_id: TournamentId(*satellite),
                as_of: *as_of,
            };
            let expired: Vec<TicketView> = director(cli).await?.request(service, verbs::EXPIRE_TICKETS.name(), &request).await?;
            if expired.is_empty() {
                eprintln!("no ticket of {satellite} expired as of {as_of}");
            }
            expired.iter().for_each(|t| say!("{}", director::ticket_line(t)));
            Ok(())
        }
    }
}

/// `floor shootout bracket` (issue 37): the shootouts service's `bracket`, one line per round
/// (`--json`: the service's answer as it is).
pub(crate) async fn shootout_command(cli: &Cli, command: &ShootoutCommand) -> Result<(), Failure> {
    use floor_events::shootouts::{verbs, Bracket, BracketOf};
    let ShootoutCommand::Bracket { tournament, json } = command;
    let request = BracketOf { tournament_id: TournamentId(*tournament), command_id: CommandId::new() };
    let bracket: Bracket =
        director(cli).await?.request(subjects::service::SHOOTOUTS, verbs::BRACKET.name(), &request).await.map_err(|f| {
            let hint = match f.message.split(':').next() {
                Some(codes::UNKNOWN_TOURNAMENT) => {
                    " (a shootout's id, as `floor tournament list` shows it; its bracket starts when it does)"
                }
                _ => "",
            };
            Failure { message: format!("{}{hint}", f.message), ..f }
        })?;
    if *json {
        return print_reply(serde_json::to_value(&bracket).expect("bracket serializes"));
    }
    director::bracket_lines(&bracket).iter().for_each(|l| say!("{l}"));
    Ok(())
}

/// `floor lottery frequencies` (issue 37): the lottery service's `frequencies`, one line per
/// multiplier, published against drawn (`--json`: the service's answer as it is).
pub(crate) async fn lottery_command(cli: &Cli, command: &LotteryCommand) -> Result<(), Failure> {
    use floor_events::lottery::{verbs, Frequencies, FrequenciesOf};
    let LotteryCommand::Frequencies { version, json } = command;
    let request = FrequenciesOf { version: version.clone(), command_id: CommandId::new() };
    let frequencies: Frequencies = director(cli).await?.request(subjects::service::LOTTERY, verbs::FREQUENCIES.name(), &request).await?;
    if *json {
        return print_reply(serde_json::to_value(&frequencies).expect("frequencies serialize"));
    }
    director::frequency_lines(&frequencies).iter().for_each(|l| say!("{l}"));
    Ok(())
}

pub(crate) fn parse_player(name: &str) -> Result<PlayerId, Failure> {
    PlayerId::parse(name).map_err(|m| Failure { message: m, exit: Exit::Usage })
}
