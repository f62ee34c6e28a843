//! Who sits where, as players see it (issue 23): the lobby's seat-map projection folds seating's
//! commits into KV `floor-lobby-tables`, and the lobby serves the seat map and the player search
//! from it, as pages and JSON.

use floor_events::codes;
use floor_events::table::{BustReport, PotWon, Report, SeatStack};
use floor_tests::{four_handed, http_get, http_request, World};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seat_map_and_the_player_search_show_tables_seats_stacks_and_who_is_out() {
    let world = World::start().await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let t = world.create(four_handed()).await;
    for player in ["ana", "Ben", "cy", "dina"] {
        world.register(t, player).await;
    }
    let seated = world.seated(t, 4).await;
    let (winner, loser) = (seated[0], seated[1]);
    world.report(t, "h1-start", Report::HandStarted { hand: 1, button: winner.seat, stacks: seated.clone(), deal_hand: None }).await;
    let bust = BustReport {
        entry: loser.entry,
        stack_at_start: loser.chips,
        pots: vec![PotWon { winners: vec![winner.entry], chips: loser.chips }],
        best_high_hand: None,
    };
    let mut after: Vec<SeatStack> = seated.iter().filter(|s| s.entry != loser.entry).copied().collect();
    after[0].chips = winner.chips + loser.chips;
    world.report(t, "h1-end", Report::HandFinished { hand: 1, stacks: after, busts: vec![bust] }).await;
    let summary = world.seat_summary_when(t, |s| s.out == 1).await;

    let (_, tables) = http_get(http, &format!("/api/tournaments/{t}/tables")).await;
    let tables: Value = serde_json::from_str(&tables).expect("tables as JSON");
    // Entries are numbered in the order of registration.
    let players = ["ana", "Ben", "cy", "dina"];
    let loser_name = players[loser.entry.0 as usize - 1];
    let (_, search) = http_get(http, &format!("/api/tournaments/{t}/players?name={}", loser_name.to_uppercase())).await;
    let search: Value = serde_json::from_str(&search).expect("search as JSON");
    let winner_name = tables["tables"][0]["seats"]
        .as_array()
        .and_then(|seats| seats.iter().find(|s| s["entry"].as_u64() == Some(u64::from(winner.entry.0))))
        .and_then(|s| s["player"].as_str())
        .unwrap_or_else(|| panic!("the winner sits at table 1: {tables}"))
        .to_owned();
    let (_, _, winner_page) = http_request(http, "GET", &format!("/tournaments/{t}/players?name={winner_name}")).await;
    let (_, _, seat_map) = http_request(http, "GET", &format!("/tournaments/{t}/tables")).await;
    let (_, _, tournament_page) = http_request(http, "GET", &format!("/tournaments/{t}")).await;
    let (long, too_long) = http_get(http, &format!("/api/tournaments/{t}/players?name={}", "x".repeat(65))).await;
    let (unknown, _) = http_get(http, &format!("/api/tournaments/{}/tables", uuid::Uuid::new_v4())).await;
    let (escaped, _, markup) = http_request(http, "GET", &format!("/tournaments/{t}/players?name=%3Cscript%3Ealert(1)%3C/script%3E")).await;

    assert_eq!((summary.tables.clone(), summary.seated, summary.waiting, summary.out), (vec![1], 3, 0, 1));
    let table = &tables["tables"][0];
    assert_eq!((table["table"].as_u64(), table["hands"].as_u64(), table["hand_running"].as_bool()), (Some(1), Some(1), Some(false)));
    let chips: Vec<u64> = table["seats"].as_array().expect("seats").iter().map(|s| s["chips"].as_u64().unwrap()).collect();
    assert_eq!(chips.len(), 3, "the busted player left the table");
    assert_eq!(chips.iter().sum::<u64>(), seated.iter().map(|s| s.chips).sum::<u64>(), "every chip is at the table");
    let hit = &search["found"][0];
    assert_eq!(search["found"].as_array().map(Vec::len), Some(1), "{search}");
    assert_eq!(hit["entry"].as_u64(), Some(u64::from(loser.entry.0)), "{search}");
    assert_eq!((hit["player"].as_str(), hit["out"].as_bool(), &hit["table"]), (Some(loser_name), Some(true), &Value::Null), "{search}");
    let row = format!("<td class=\"num seat\">{}</td>", winner.seat.0);
    assert!(winner_page.contains("class=\"player-hit\"") && winner_page.contains(&row), "the winner's table and seat: {winner_page}");
    let stack = floor_lobby::money::grouped(winner.chips + loser.chips);
    assert!(winner_page.contains(&format!("<td class=\"num chips\">{stack}</td>")), "the winner's stack after the hand: {winner_page}");
    assert!(
        seat_map.contains("id=\"table-1\"")
            && seat_map.contains(&format!(">{winner_name}<"))
            && !seat_map.contains(&format!(">{loser_name}<")),
        "{seat_map}"
    );
    assert!(tournament_page.contains("id=\"player-search\"") && tournament_page.contains(&format!("/tournaments/{t}/tables")));
    assert_eq!(long, 400, "{too_long}");
    assert!(too_long.contains(codes::INVALID_FIELD));
    assert_eq!(unknown, 404);
    assert_eq!(escaped, 200);
    assert!(markup.contains("&lt;script&gt;") && !markup.contains("<script>alert"), "the typed name is text");

    // Issue 39: the chip leaders, biggest first (the winner of the hand, 20,000), each with its
    // table and seat; a limit outside 1..=100 is refused; the tables page shows them too.
    let (status, leaders) = http_get(http, &format!("/api/tournaments/{t}/leaders?limit=2")).await;
    assert_eq!(status, 200, "{leaders}");
    let leaders: Value = serde_json::from_str(&leaders).expect("leaders as JSON");
    let top = leaders["leaders"].as_array().expect("leaders");
    assert_eq!(top.len(), 2, "{leaders}");
    assert_eq!((top[0]["rank"].as_u64(), top[0]["entry"].as_u64()), (Some(1), Some(u64::from(winner.entry.0))), "{leaders}");
    assert_eq!((top[0]["chips"].as_u64(), top[0]["table"].as_u64()), (Some(winner.chips + loser.chips), Some(1)), "{leaders}");
    assert_eq!(top[1]["rank"].as_u64(), Some(2), "the other two hold 10,000 each: the lower entry first, rank 2: {leaders}");
    for bad in ["0", "101", "ten"] {
        let (status, body) = http_get(http, &format!("/api/tournaments/{t}/leaders?limit={bad}")).await;
        assert!(status == 400 && body.contains(codes::INVALID_FIELD), "limit={bad}: {status} {body}");
    }
    assert!(seat_map.contains("id=\"leaders\"") && seat_map.contains("Chip leaders"), "{seat_map}");
}
