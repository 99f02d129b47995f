"""The lobby's choices come from ``GET /api/variants``: the client keeps no rule data of its own.

One test checks each variant's choices in the create form against the server's
answer, the variants listed under their groups; another serves the page a
changed answer (a variant more in a group of its own, one less, other clocks)
and sees every form of the lobby follow it, the new variant and its group
named by the server until they are translated.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tests.web.browser_client import Client
from tests.web.web_driver import REPO_ROOT, Http, WebServer


MakeClient = Callable[..., Client]


def _values(select: Any) -> list[str]:
    values: list[str] = select.locator("option").evaluate_all("options => options.map((o) => o.value)")
    return values


def _groups(select: Any) -> list[tuple[str, str, list[str]]]:
    """A variant picker's groups: (group, label, the ids of its options), in the picker's order."""
    groups: list[list[Any]] = select.locator("optgroup").evaluate_all(
        "groups => groups.map((g) => [g.dataset.group, g.label, [...g.querySelectorAll('option')].map((o) => o.value)])")
    return [(group, label, ids) for group, label, ids in groups]


def _grouped(variants: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The server's variants by group: the groups in the order their first variants come, each in the server's order."""
    groups: dict[str, list[str]] = {}
    for entry in variants:
        groups.setdefault(entry["group"], []).append(entry["id"])
    return list(groups.items())


def test_the_create_form_offers_what_the_server_says(client: MakeClient, web_server: WebServer) -> None:
    described = Http(web_server).get("/api/variants")
    person = client()
    person.goto("#/")
    form = person.page.locator("form.create")
    variant = form.locator("select[name=variant]")
    variant.locator("option").last.wait_for(state="attached")
    english = json.loads((REPO_ROOT / "nardy" / "web" / "i18n" / "en.json").read_text(encoding="utf-8"))
    assert _groups(variant) == [(group, english[f"variant_group.{group}"], ids)
                                for group, ids in _grouped(described["variants"])]
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
        "group": "test-group",
    }
    # a variant of a known group after the new one: it is listed with its group, which keeps its place
    kept = [entry for entry in changed["variants"] if entry["id"] not in ("dave", "backgammon")]
    backgammon = next(entry for entry in changed["variants"] if entry["id"] == "backgammon")
    changed["variants"] = [*kept, invented, backgammon]
    changed["clocks"] = {
        "move_seconds": [45], "correspondence_days": [2],
        "bank": [{"delay_seconds": 5, "bank_seconds_per_point": 50}],
        "default_bank": {"delay_seconds": 5, "bank_seconds_per_point": 50},
    }
    person = client()
    person.page.route("**/api/variants", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(changed)))
    person.goto("#/")
    grouped = _grouped(changed["variants"])
    assert grouped[-1] == ("test-group", ["test-nardy"]) and "backgammon" in grouped[0][1]
    ids = [variant for _, members in grouped for variant in members]
    form = person.page.locator("form.create")
    form.locator("select[name=variant] option[value=test-nardy]").wait_for(state="attached")
    for picker in (form.locator("select[name=variant]"), person.page.locator("select[name=quick-variant]"),
                   person.page.locator("select[name=mm-variant]")):
        assert _values(picker) == ids
        assert [(group, members) for group, _, members in _groups(picker)] == grouped
    assert _groups(form.locator("select[name=variant]"))[-1][1] == "test-group", "an untranslated group: its name"
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
