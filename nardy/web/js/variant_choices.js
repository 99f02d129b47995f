// The options of every variant picker (the lobby's quick play and create form, matchmaking, the analysis board,
// tournaments): the server's variants (GET /api/variants) under an <optgroup> per `group`, the groups in the
// order their first variants come in the server's list and the variants in its order within them. A group or a
// variant the client has never heard of is offered as it is, named by the server until it is translated.
import { h } from "./dom.js";
import { variants } from "./variants.js";
import { variantName, variantGroupName } from "./names.js";

/** The <optgroup>s of a variant <select>, each holding its group's <option>s (values: the variants' ids); only the variants
 * `keep` accepts (the analysis board studies one game's rules, so it leaves out a match of rotating games). */
export function variantOptions(keep = () => true) {
  const groups = new Map();
  for (const variant of variants().filter(keep)) {
    if (!groups.has(variant.group)) groups.set(variant.group, []);
    groups.get(variant.group).push(variant);
  }
  return [...groups].map(([group, members]) => h("optgroup", { label: variantGroupName(group), "data-group": group },
    members.map((variant) => h("option", { value: variant.id }, variantName(variant.id)))));
}
