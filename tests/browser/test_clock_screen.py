"""The clock screen for the room's TV and the results that stay (issue 39), in headless Chromium
against a platform with a `floor sim` playing: the screen, opened from the tournament page with no
sign-in, counts the time down in the page, follows levels and busts over the tournament page's own
feed (`?view=clock`) without a reload, and is set large enough to read across a room; the results
page lists finishers with place and prize, and the search shows a busted player's place. The
screenshot docs/screenshots/clock.png is taken here (FLOOR_UPDATE_SCREENSHOTS=1)."""

import re

from conftest import screenshot, wait_for
from playwright.sync_api import expect

LEVEL = re.compile(r"Level (\d+)")
PLAYERS = re.compile(r"([\d,]+) / ([\d,]+)")


def shown_level(page) -> int:
    m = LEVEL.search(page.locator("#screen-level").inner_text())
    return int(m.group(1)) if m else 0


def shown_players(page) -> tuple[int, int]:
    m = PLAYERS.search(page.locator("#screen-players").inner_text())
    assert m, page.locator("#screen-players").inner_text()
    return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))


def test_the_clock_screen_counts_down_and_follows_levels_and_busts_without_reload(world, page):
    world.sim(entrants=40, hand_every=1)
    tid = world.running_tournament()["tournament_id"]

    # Linked from the tournament page; no sign-in.
    page.goto(f"{world.base}/tournaments/{tid}")
    page.get_by_role("link", name="Clock screen").click()
    page.wait_for_url(f"{world.base}/tournaments/{tid}/clock")
    expect(page.locator("#live-status")).to_have_text("live")
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)
    page.evaluate("window.__floorLoaded = true")

    level = shown_level(page)
    left, entrants = shown_players(page)
    assert level >= 1 and entrants == 40, (level, left, entrants)
    for part in ("#screen-blinds", "#screen-next", "#screen-pool", "#screen-average"):
        expect(page.locator(part)).to_be_visible()

    # The time left counts down in the page between revisions (the script, from data-ends-at).
    countdown = page.locator("#screen-time .countdown[data-ends-at]")
    expect(countdown).to_have_count(1)
    page.wait_for_function(
        "t => { const c = document.querySelector('#screen-time .countdown'); return c && c.textContent !== t; }",
        arg=countdown.inner_text(),
    )
    # Readable across a room: the time left is set far larger than the page's text.
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#screen-time .countdown')).fontSize)")
    assert size >= 100, f"the time left is {size}px"

    # The next level arrives over the feed (8-second levels: tests/browser/fast.toml) …
    page.wait_for_function(
        "n => { const m = /Level (\\d+)/.exec(document.querySelector('#screen-level').textContent); return m && +m[1] > n; }",
        arg=level,
    )
    # … and so do eliminations: the count of players left falls.
    page.wait_for_function(
        "n => { const m = /([\\d,]+) \\//.exec(document.querySelector('#screen-players').textContent);"
        " return m && +m[1].replace(/,/g, '') < n; }",
        arg=left,
    )
    assert page.evaluate("window.__floorLoaded === true"), "the screen was reloaded"
    assert navigations == [], f"the screen navigated: {navigations}"
    assert shown_level(page) > level and shown_players(page)[0] < left
    assert page.js_errors == [], page.js_errors
    screenshot(page, "clock")


def test_the_results_list_finishers_and_the_search_shows_a_busted_players_place(world, page):
    world.sim(entrants=40, hand_every=1)
    tid = world.running_tournament()["tournament_id"]

    # Players go out; each finisher is kept with place and prize.
    def finisher():
        found = world.json(f"/api/tournaments/{tid}/results")["finishers"]
        return found[-1] if found else None

    last = wait_for("a finisher in the results", finisher)
    page.goto(f"{world.base}/tournaments/{tid}")
    page.get_by_role("link", name="Results").first.click()
    page.wait_for_url(f"{world.base}/tournaments/{tid}/results")
    expect(page.locator("#results")).to_contain_text(last["player"])
    expect(page.locator("#results-summary")).to_contain_text("40 entries")

    page.goto(f"{world.base}/tournaments/{tid}/players?name={last['player']}")
    row = page.locator("tr.player-hit").filter(has=page.locator("td.entry", has_text=re.compile(rf"^{last['entry']}$")))
    expect(row.locator("td.table")).to_have_text("out")
    expect(row.locator("td.finish")).to_contain_text(f"{last['place']}")
    assert page.js_errors == [], page.js_errors
