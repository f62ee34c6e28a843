"""The players' pages and the director console in headless Chromium (issue 23, "Tests"), each
test against its own platform with a `floor sim` playing: the tournament page follows the
tournament over Server-Sent Events without a reload, the console refuses a wrong password and
pauses the clock with the right one, and HTML in a name is shown as text. The screenshots in
docs/screenshots/ are taken here (FLOOR_UPDATE_SCREENSHOTS=1 rewrites them)."""

import re
from pathlib import Path

from conftest import CONSOLE_PASSWORD, ROOT, players_left, screenshot, update_screenshots, wait_for
from playwright.sync_api import expect

LEVEL = re.compile(r"Level (\d+)")


def shown_level(page) -> int:
    m = LEVEL.search(page.locator("#clock").inner_text())
    return int(m.group(1)) if m else 0


def mark_loaded(page) -> list:
    """Marks the document; a reload or navigation would lose the mark (checked by `still_loaded`)."""
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)
    page.evaluate("window.__floorLoaded = true")
    return navigations


def still_loaded(page, navigations):
    assert page.evaluate("window.__floorLoaded === true"), "the page was reloaded"
    assert navigations == [], f"the page navigated: {navigations}"


def test_the_tournament_page_follows_levels_and_busts_without_reload(world, page):
    world.sim(entrants=40, hand_every=1)
    doc = world.running_tournament()
    tid = doc["tournament_id"]

    page.goto(f"{world.base}/tournaments/{tid}")
    expect(page.locator("#live-status")).to_have_text("live")
    navigations = mark_loaded(page)
    level = shown_level(page)
    left, entrants = players_left(page.locator("#field").inner_text())
    assert level >= 1 and entrants == 40, (level, left, entrants)

    # The next level arrives over the feed (8-second levels: tests/browser/fast.toml) …
    page.wait_for_function(
        "n => { const m = /Level (\\d+)/.exec(document.querySelector('#clock').textContent); return m && +m[1] > n; }",
        arg=level,
    )
    # … and so do eliminations: the count of players left falls.
    page.wait_for_function(
        "n => { const m = /Players left\\s*([\\d,]+) of/.exec(document.querySelector('#field').textContent);"
        " return m && +m[1].replace(/,/g, '') < n; }",
        arg=left,
    )
    # The structure below the live part marks the level in play, as the clock says it.
    page.wait_for_function(
        "() => { const m = /Level (\\d+)/.exec(document.querySelector('#clock').textContent);"
        " const b = document.querySelectorAll('#structure span.badge');"
        " return m && b.length === 1 && b[0].textContent.trim() === m[1]; }"
    )
    still_loaded(page, navigations)
    assert shown_level(page) > level
    assert players_left(page.locator("#field").inner_text())[0] < left
    # The countdown ticks in the page (the script), from the live part's data-ends-at.
    expect(page.locator("#clock .countdown[data-ends-at]")).to_have_count(1)
    assert page.js_errors == [], page.js_errors
    screenshot(page, "tournament")

    # The list shows it too (a page of its own; not live). For the screenshot, a list with
    # more than the sim's tournament in it: the examples, scheduled in the future.
    if update_screenshots():
        for example in ("sunday-major.toml", "daily-turbo-reentry.toml", "rebuy-turbo.toml", "sit-and-go-9.toml"):
            world.floor("tournament", "create", "--file", str(ROOT / "examples" / example))
        wait_for("the examples listed", lambda: world.json("/api/tournaments")["total"] == 5)
    page.goto(f"{world.base}/")
    expect(page.locator(f'a[href="/tournaments/{tid}"]').first).to_be_visible()
    screenshot(page, "list")


def reload_until(page, url, shown):
    """Opens `url` again until `shown()`: for pages that do not update themselves. (A reload of
    the page that answered a form would send the form again.)"""
    wait_for(f"{url} to show it", lambda: shown() or page.goto(url) and False, every=0.3)


def sign_in(page, base, password):
    page.goto(f"{base}/console")
    page.locator('input[name="director"]').fill("Ana")
    page.locator('input[name="password"]').fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_the_console_refuses_a_wrong_password_and_pauses_the_clock_with_the_right_one(world, page):
    world.sim(entrants=30, hand_every=1)
    tid = world.running_tournament()["tournament_id"]

    with page.expect_response(lambda r: r.url.endswith("/console/login") and r.request.method == "POST") as answer:
        sign_in(page, world.base, "not-the-password")
    assert answer.value.status == 401
    expect(page.locator(".notice.error")).to_have_text("Wrong password.")
    page.goto(f"{world.base}/console/tournaments/{tid}")
    expect(page.get_by_role("heading", name="Director sign-in")).to_be_visible()
    expect(page.locator("#actions")).to_have_count(0)

    sign_in(page, world.base, CONSOLE_PASSWORD)
    expect(page.get_by_role("heading", name="Tournaments")).to_be_visible()
    page.locator(f'a[href="/console/tournaments/{tid}"]').click()
    pause = page.locator(f'form[action="/console/tournaments/{tid}/pause"]')
    pause.locator('input[name="reason"]').fill("chip race")
    pause.get_by_role("button", name="Pause").click()
    expect(page.locator(".notice.ok")).to_be_visible()
    # The console's pages do not update themselves (no script): the pause is stored when the
    # notice says so, and shown once the lobby's projection has folded it.
    reload_until(page, f"{world.base}/console/tournaments/{tid}", lambda: "Paused: chip race (director: Ana)" in page.locator("#clock").inner_text())
    wait_for("the tables on the console", lambda: page.locator("#tables").count() == 1)
    screenshot(page, "console")

    # The players see it paused, with the reason, and the document says so.
    players = page.context.new_page()
    players.goto(f"{world.base}/tournaments/{tid}")
    expect(players.locator("#clock .badge.paused")).to_contain_text("Paused: chip race")
    clock = world.json(f"/api/tournaments/{tid}")["clock"]
    assert clock["status"] == "paused" and "chip race" in clock["paused_reason"], clock


# A name that runs script in three ways if it is ever written as markup: an inline script, an
# image whose error handler runs (also through innerHTML, which the live feed uses), and a
# broken-out attribute.
XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">"\'><b>bold</b>'


def test_html_in_a_tournament_name_is_shown_as_text(world, page):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    # One from the console's form …
    sign_in(page, world.base, CONSOLE_PASSWORD)
    page.locator('select[name="template"]').select_option("turbo_freezeout")
    page.locator('input[name="name"]').fill(XSS)
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".notice.ok")).to_be_visible()
    reload_until(page, f"{world.base}/console", lambda: page.locator("td a").filter(has_text=XSS).count() == 1)
    # … and one from the command line (the registration command, as any client sends it).
    definition = Path(world.tmp / "named.toml")
    text = (Path(__file__).parents[2] / "examples" / "sit-and-go-9.toml").read_text()
    definition.write_text(text.replace('name = "Sit & Go 9-max"', "name = " + tomlstr(XSS + " (cli)")))
    cli_id = world.floor("tournament", "create", "--file", str(definition)).strip()

    def both():
        found = [d for d in world.json("/api/tournaments")["tournaments"] if d["name"].startswith(XSS)]
        return found if len(found) == 2 else None

    docs = wait_for("both in the list", both)
    assert cli_id in [d["tournament_id"] for d in docs]

    page.goto(f"{world.base}/")
    for doc in docs:
        expect(page.locator(f'a[href="/tournaments/{doc["tournament_id"]}"]')).to_have_text(doc["name"])
    for doc in docs:
        page.goto(f"{world.base}/tournaments/{doc['tournament_id']}")
        # The live part arrives once more over the feed and replaces the page's (innerHTML).
        expect(page.locator("#live-status")).to_have_text("live")
        expect(page.locator("#live h1")).to_have_text(doc["name"])
        assert page.title().startswith(doc["name"])
        assert page.locator("#live b, #live img, #live script").count() == 0, "no markup from the name"
        assert page.evaluate("window.__xss") is None, "the name's script ran"
    assert dialogs == [] and page.js_errors == [], (dialogs, page.js_errors)


def tomlstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
