"""A player finds their table and seat from the tournament page (issue 23: "the player search
finds a seated player's table"), and the seat map shows that table.

The contract (the lobby's seat map and search, built beside this test):
- the tournament page has `<form id="player-search" method="get"
  action="/tournaments/{id}/players">` with `<input name="name">`;
- the results list each matching entry as `<tr class="player-hit">` with `td.table` and `td.seat`;
- `/tournaments/{id}/tables` has one `<section class="table" id="table-{n}">` per open table.
Skipped, saying so, while `/tournaments/{id}/players` is not served (404)."""

import re

import pytest
from conftest import wait_for
from playwright.sync_api import expect

SIM_PLAYER = re.compile(r"\bsim-\d+\b")


def test_the_player_search_finds_a_seated_players_table_and_seat(world, page):
    world.sim(entrants=40, hand_every=2)
    tid = world.running_tournament()["tournament_id"]
    status, _ = world.get(f"/tournaments/{tid}/players?name=sim-1")
    if status == 404:
        pytest.skip("the player search is not served yet (GET /tournaments/{id}/players answered 404)")

    page.goto(f"{world.base}/tournaments/{tid}")
    expect(page.locator("form#player-search input[name='name']")).to_have_count(1)

    def found():
        # Who sits where now: a player at the first open table of the seat map …
        page.goto(f"{world.base}/tournaments/{tid}/tables")
        tables = page.locator("section.table")
        expect(tables.first).to_be_visible(timeout=5_000)
        section = tables.first
        table = int(section.get_attribute("id").removeprefix("table-"))
        player = SIM_PLAYER.search(section.inner_text()).group(0)
        # … searched by name from the tournament page, as a player would.
        page.goto(f"{world.base}/tournaments/{tid}")
        search = page.locator("form#player-search")
        search.locator("input[name='name']").fill(player)
        search.locator("input[name='name']").press("Enter")
        page.wait_for_url(re.compile(rf"/tournaments/{tid}/players\?"))
        # The row with a cell that is exactly the name (the search also finds sim-10 for sim-1).
        hits = page.locator("tr.player-hit").filter(has=page.get_by_role("cell", name=player, exact=True))
        expect(hits.first).to_be_visible(timeout=5_000)
        tables_shown = [h.locator("td.table").inner_text() for h in hits.all()]
        seats_shown = [h.locator("td.seat").inner_text() for h in hits.all()]
        # A move between the two reads sends the player elsewhere: then look again.
        if any(re.search(rf"\b{table}\b", t) for t in tables_shown):
            assert all(re.search(r"\d", s) for s in seats_shown), seats_shown
            return player, table
        return None

    player, table = wait_for("a player's table in the search and the seat map to agree", found, every=0.5)
    page.goto(f"{world.base}/tournaments/{tid}/tables")
    expect(page.locator(f"section.table#table-{table}")).to_have_count(1)
