"""The director console's desk actions (issue 39, "Directors") in headless Chromium, each against its
own platform: create from a pasted TOML definition (an examples/*.toml file as it is, its start
relative to now), register and unregister a player, rebuy and add-on, hand-for-hand's start, pause,
resume and stop, and the books. Every action's answer is shown on the page that answers it, with
the state after it (the console waits for the lobby to show its effect), or refused with its code
and message; the tournament page's live part (time left, payouts) follows the players' feed."""

import datetime
import re

from conftest import CONSOLE_PASSWORD, ROOT, wait_for
from playwright.sync_api import expect


def sign_in(page, base):
    page.goto(f"{base}/console")
    page.locator('input[name="director"]').fill("Ana")
    page.locator('input[name="password"]').fill(CONSOLE_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Tournaments")).to_be_visible()


def act(page, tid, action, button, **fields):
    """Fills the action's form and sends it; the page that answers."""
    form = page.locator(f'form[action="/console/tournaments/{tid}/{action}"]')
    for name, value in fields.items():
        form.locator(f'[name="{name}"]').fill(value)
    with page.expect_response(lambda r: r.url.endswith(f"/{action}") and r.request.method == "POST") as answer:
        form.get_by_role("button", name=button).click()
    return answer.value


def refused_code(page) -> str:
    expect(page.locator(".notice.error")).to_be_visible()
    code = page.locator(".notice.error code").inner_text().strip()
    assert re.fullmatch(r"[a-z_]+", code), code
    assert len(page.locator(".notice.error").inner_text()) > len("Refused: ") + len(code) + 3, "the message is shown"
    return code


def create(world, example: str) -> str:
    return world.floor("tournament", "create", "--file", str(ROOT / "examples" / example)).strip().split()[-1]


def register_under_svenska(world, tid: str, player: str) -> None:
    # rebuy-turbo.toml is svenska-spel-2012: limits per day, week and month before a first
    # tournament (002 §2.3).
    world.floor("limits", player, "--per-day", "5", "--per-week", "10", "--per-month", "20")
    world.floor("register", tid, player)


def test_console_creates_a_tournament_from_a_pasted_toml_example(world, page):
    sign_in(page, world.base)
    text = (ROOT / "examples" / "rebuy-turbo.toml").read_text()
    assert "in_minutes = 120" in text
    page.locator('textarea[name="definition"]').fill(text)
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".notice.ok")).to_contain_text("Created Rebuy Turbo")
    # Read your own write: the page that answers lists it, without a reload.
    link = page.locator("td a").filter(has_text="Rebuy Turbo")
    expect(link).to_have_count(1)
    tid = link.get_attribute("href").rsplit("/", 1)[-1]
    doc = world.json(f"/api/tournaments/{tid}")
    start = datetime.datetime.fromisoformat(doc["start"].replace("Z", "+00:00"))
    minutes = (start - datetime.datetime.now(datetime.timezone.utc)).total_seconds() / 60
    assert 118 < minutes <= 121, f"starts {minutes:.1f} min from now"

    # A definition that is not one: refused with the code and the parser's words.
    page.locator('textarea[name="definition"]').fill('name = "Broken"\nstart = ')
    page.get_by_role("button", name="Create").click()
    assert refused_code(page) == "invalid_field"
    expect(page.locator(".notice.error")).to_contain_text("TOML")


def test_console_registers_and_unregisters_a_player_at_the_desk(world, page):
    tid = create(world, "sunday-major.toml")
    sign_in(page, world.base)
    page.goto(f"{world.base}/console/tournaments/{tid}")

    assert act(page, tid, "register", "Register", player="alice").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Registered alice: entry #1")
    # sunday-major.toml: EUR 100 + EUR 9 fee.
    expect(page.locator(".notice.ok")).to_contain_text("(registration), paid €109.00 (fee €9.00, prize pool €100.00)")
    assert world.json(f"/api/tournaments/{tid}")["entrants"] == 1
    assert "1 entries" in page.locator("body").inner_text(), "the page shows the state after the action"

    # A freezeout: a second entry for alice is refused, with the service's code and message.
    assert act(page, tid, "register", "Register", player="alice").status == 422
    refused_code(page)

    assert act(page, tid, "unregister", "Unregister", player="alice").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Unregistered alice")
    assert "0 entries" in page.locator("body").inner_text()
    assert act(page, tid, "unregister", "Unregister", player="alice").status == 422
    refused_code(page)


def test_console_rebuy_and_add_on_are_sent_and_refused_with_their_codes(world, page):
    tid = create(world, "rebuy-turbo.toml")
    register_under_svenska(world, tid, "alice")
    sign_in(page, world.base)
    page.goto(f"{world.base}/console/tournaments/{tid}")
    # Before the start nobody is offered a rebuy, and the add-on waits for its break: the
    # rebuys service says so, and the page shows its code and message.
    assert act(page, tid, "rebuy", "Rebuy", player="alice").status == 422
    rebuy = refused_code(page)
    assert act(page, tid, "add_on", "Add-on", player="alice", entry="1").status == 422
    add_on = refused_code(page)
    assert rebuy and add_on
    # An entry is counted from 1: the browser's form says so before anything is sent.
    form = page.locator(f'form[action="/console/tournaments/{tid}/add_on"]')
    assert form.locator('input[name="entry"]').get_attribute("min") == "1"


def test_console_hand_for_hand_starts_pauses_resumes_and_stops(world, page):
    world.sim(entrants=30, hand_every=1)
    tid = world.running_tournament()["tournament_id"]
    sign_in(page, world.base)
    page.goto(f"{world.base}/console/tournaments/{tid}")

    assert act(page, tid, "hfh_start", "Start").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Hand-for-hand started")
    expect(page.locator("#live #hand-for-hand")).to_contain_text("on, hand")

    assert act(page, tid, "hfh_pause", "Pause", reason="floor call").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Hand-for-hand paused")
    expect(page.locator("#live #hand-for-hand")).to_contain_text("held by the director")

    assert act(page, tid, "hfh_resume", "Resume").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Hand-for-hand resumed")
    expect(page.locator("#live #hand-for-hand")).not_to_contain_text("held by the director")

    assert act(page, tid, "hfh_stop", "Stop").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Hand-for-hand stopped")
    assert not world.json(f"/api/tournaments/{tid}")["hand_for_hand"]["on"]


def test_console_shows_the_books_and_the_payout_table_and_the_time_left_is_live(world, page):
    world.sim(entrants=30, hand_every=1)
    tid = world.running_tournament()["tournament_id"]
    sign_in(page, world.base)
    page.goto(f"{world.base}/console/tournaments/{tid}")

    # The live part follows the players' feed: connected, and the time left counts down.
    expect(page.locator("#live-status")).to_have_text("live")
    expect(page.locator("#live #clock .countdown[data-ends-at]")).to_have_count(1)
    first = page.locator("#live #clock").inner_text()
    wait_for("the clock to change without a reload", lambda: page.locator("#live #clock").inner_text() != first)
    expect(page.locator("#live #payouts")).to_be_visible()

    assert act(page, tid, "books", "Show the books").status == 200
    books = page.locator(".notice.ok")
    expect(books).to_contain_text("30 entries")
    expect(books).to_contain_text("prize pool")
    expect(books).to_contain_text("balanced")
    # The console's own tables section, once (the live part leaves the players' summary out).
    expect(page.locator("#tables")).to_have_count(1)
    # The console's feed is a director's: without a session, refused.
    assert world.get(f"/console/tournaments/{tid}/events")[0] == 401
    assert page.js_errors == [], page.js_errors


def test_console_ends_rebuys_and_takes_an_add_on_shown_in_the_books(world, page):
    tid = create(world, "rebuy-turbo.toml")
    players = [f"p{i}" for i in range(10)]
    for player in players:
        register_under_svenska(world, tid, player)
    sign_in(page, world.base)
    page.goto(f"{world.base}/console/tournaments/{tid}")
    assert act(page, tid, "start", "Start now").status == 200
    expect(page.locator(f'form[action="/console/tournaments/{tid}/end_rebuys"]')).to_have_count(1)

    assert act(page, tid, "end_rebuys", "End rebuys").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Rebuys ended")
    assert act(page, tid, "add_on", "Add-on", player="p3").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("Add-on for p3: 1 event recorded")
    # Taken once: a second is refused with the service's code.
    assert act(page, tid, "add_on", "Add-on", player="p3").status == 422
    refused_code(page)

    assert act(page, tid, "books", "Show the books").status == 200
    expect(page.locator(".notice.ok")).to_contain_text("10 entries, 0 rebuys, 1 add-ons")
    expect(page.locator(".notice.ok")).to_contain_text("balanced")
