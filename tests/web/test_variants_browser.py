"""The lobby's choices come from ``GET /api/variants``: the client keeps no rule data of its own.

One test checks each variant's choices in the create form against the server's
answer; another serves the page a changed answer (a variant more, one less,
other clocks) and sees every form of the lobby follow it, the new variant
named by the server's title until it is translated.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tests.web.browser_client import Client
from tests.web.web_driver import Http, WebServer


MakeClient = Callable[..., Client]


def _values(select: Any) -> list[str]:
    values: list[str] = select.locator("option").evaluate_all("options => options.map((o) => o.value)")
    return values


def test_the_create_form_offers_what_the_server_says(client: MakeClient, web_server: WebServer) -> None:
    described = Http(web_server).get("/api/variants")
    person = client()
    person.goto("#/")
    form = person.page.locator("form.create")
    variant = form.locator("select[name=variant]")
    variant.locator("option").last.wait_for(state="attached")
    assert _values(variant) == [entry["id"] for entry in described["variants"]]
    form.locator("select[name=opponent]").select_option("computer")
    for entry in described["variants"]:
        variant.select_option(entry["id"])
        lengths = entry["match_lengths"]
        if lengths is None:
            field = form.locator("input[name=match_length]")
            assert field.get_attribute("max") == str(entry["longest_match"])
            assert field.get_attribute("min") == ("0" if entry["money_play"] else "1")
        else:
            offered = [int(n) for n in _values(form.locator("select[name=match_length]"))]
            assert offered == ([0] if entry["money_play"] else []) + lengths
        assert not form.locator("input[name=moves_final]").is_checked(), f"{entry['id']}: undo against the computer"
        form.locator("select[name=opponent]").select_option("human")
        assert form.locator("input[name=moves_final]").is_checked() == entry["moves_final"], entry["id"]
        form.locator("select[name=opponent]").select_option("computer")
        assert form.locator("fieldset.cube-options").is_visible() == entry["cube"]["allowed"], entry["id"]
        assert _values(form.locator("select[name=bot_level]")) == entry["levels"]
    clocks = described["clocks"]
    bank = [f"b{c['delay_seconds']}-{c['bank_seconds_per_point']}" for c in clocks["bank"]]
    expected = ["", *bank, *(f"s{n}" for n in clocks["move_seconds"]), *(f"d{n}" for n in clocks["correspondence_days"])]
    assert _values(form.locator("select[name=time]")) == expected


def test_the_lobby_follows_a_changed_list_of_variants(client: MakeClient, web_server: WebServer) -> None:
    """A variant the client has never heard of is offered with its own lengths, levels and defaults;
    a variant left out is no longer offered; the clocks are the answer's."""
    described = Http(web_server).get("/api/variants")
    changed = copy.deepcopy(described)
    georgian = next(entry for entry in changed["variants"] if entry["id"] == "georgian")
    invented = {
        **copy.deepcopy(georgian), "id": "test-nardy", "title": "Test nardy", "match_lengths": [2, 4],
        "money_play": False, "moves_final": True, "levels": ["random", "beginner"], "pairing_lengths": [2],
    }
    changed["variants"] = [entry for entry in changed["variants"] if entry["id"] != "dave"] + [invented]
    changed["clocks"] = {
        "move_seconds": [45], "correspondence_days": [2],
        "bank": [{"delay_seconds": 5, "bank_seconds_per_point": 50}],
        "default_bank": {"delay_seconds": 5, "bank_seconds_per_point": 50},
    }
    person = client()
    person.page.route("**/api/variants", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(changed)))
    person.goto("#/")
    ids = [entry["id"] for entry in changed["variants"]]
    form = person.page.locator("form.create")
    form.locator("select[name=variant] option[value=test-nardy]").wait_for(state="attached")
    assert _values(form.locator("select[name=variant]")) == ids
    assert _values(person.page.locator("select[name=quick-variant]")) == ids
    assert _values(person.page.locator("select[name=mm-variant]")) == ids
    assert _values(form.locator("select[name=time]")) == ["", "b5-50", "s45", "d2"]
    assert _values(person.page.locator("select[name=mm-clock]")) == ["b5-50"]

    form.locator("select[name=variant]").select_option("test-nardy")
    assert form.locator("select[name=variant] option[value=test-nardy]").inner_text() == "Test nardy"
    assert _values(form.locator("select[name=match_length]")) == ["2", "4"]
    assert form.locator("input[name=moves_final]").is_checked()
    form.locator("select[name=opponent]").select_option("computer")
    assert _values(form.locator("select[name=bot_level]")) == ["random", "beginner"]
    person.page.locator("select[name=quick-variant]").select_option("test-nardy")
    assert _values(person.page.locator("select[name=quick-level]")) == ["random", "beginner"]
    person.page.locator("select[name=mm-variant]").select_option("test-nardy")
    assert _values(person.page.locator("select[name=mm-length]")) == ["2"]
