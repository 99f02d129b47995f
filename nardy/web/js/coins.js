// Virtual coins: the profile's balance and history, the coins leaderboard, and how a stake is written.
// Coins are not money (seed 002): wherever they appear, the note says they cannot be bought or sold.
import { h, fill, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, get, errorText } from "./api.js";
import { formatDate } from "./names.js";

const HISTORY_PAGE = 20;

const REASONS = {
  grant: () => t("coins.reason_grant"),
  top_up: () => t("coins.reason_top_up"),
  match_won: () => t("coins.reason_match_won"),
  match_lost: () => t("coins.reason_match_lost"),
};

/** The note shown wherever coins appear: no money value, never bought or sold. */
export function coinsNote() {
  return h("p", { class: "hint coins-note", "data-coins-note": "" }, t("coins.note"));
}

/** "50 coins/point" for a table played for coins, null for one that is not. */
export function stakeText(table) {
  return table.stake ? t("coins.stake_badge", { stake: table.stake }) : null;
}

/**
 * The profile's coins card: the balance for anyone; for the player themself also what is held at coin
 * tables and the history, a page at a time.
 */
export function coinsCard(username, own, guest) {
  const card = h("div", { class: "card", id: "profile-coins" }, h("p", {}, t("common.loading")));
  if (guest) {
    fill(card, h("h2", {}, t("coins.title")), h("p", {}, t("coins.guest")), coinsNote());
    return card;
  }
  (async () => {
    try {
      if (!own) {
        let data;
        try {
          data = await get(`/api/users/${encodeURIComponent(username)}/coins`);
        } catch (error) {
          if (!(error instanceof ApiError) || error.status !== 404) throw error;
          card.hidden = true;  // a guest: no coins to show
          return;
        }
        fill(card, h("h2", {}, t("coins.title")), balanceLine(data.balance), coinsNote());
        return;
      }
      const data = await get(`/api/coins?limit=${HISTORY_PAGE}`);
      const body = h("tbody", {});
      const more = h("button", { type: "button", "data-action": "coins-older" }, t("coins.older"));
      let before = data.next_before;
      const addRows = (rows) => body.append(...rows.map(historyRow));
      more.hidden = before === null;
      more.addEventListener("click", async () => {
        try {
          const page = await get(`/api/coins?limit=${HISTORY_PAGE}&before=${before}`);
          addRows(page.history);
          before = page.next_before;
          more.hidden = before === null;
        } catch (error) {
          more.replaceWith(h("p", { class: "error" }, errorText(error)));
        }
      });
      addRows(data.history);
      fill(card,
        h("h2", {}, t("coins.title")),
        balanceLine(data.balance),
        data.held ? h("p", { "data-coins-held": String(data.held) }, t("coins.held", { held: data.held, free: data.free })) : null,
        h("p", { class: "hint" }, t("coins.daily", { grant: data.starting_grant, daily: data.daily_top_up })),
        coinsNote(),
        h("h3", {}, t("coins.history")),
        scrollable(h("table", { class: "data", id: "coins-history" },
          h("thead", {}, h("tr", {}, [t("profile.date"), t("coins.what"), t("coins.amount"), t("coins.balance_after")]
            .map((x) => h("th", { scope: "col" }, x)))),
          body)),
        more);
    } catch (error) {
      fill(card, h("p", { class: "error" }, errorText(error)));
    }
  })();
  return card;
}

function balanceLine(balance) {
  return h("p", { class: "coins-balance" }, t("coins.balance_label"), " ",
    h("strong", { "data-coins-balance": String(balance) }, t("coins.balance", { balance })));
}

function historyRow(row) {
  const what = REASONS[row.reason] ? REASONS[row.reason]() : row.reason;
  return h("tr", { "data-coin-movement": String(row.id) },
    h("td", {}, formatDate(row.at)),
    h("td", {}, row.table ? h("a", { href: `#/replay/${row.table}` }, what) : what),
    h("td", { class: row.amount >= 0 ? "won" : "lost" }, row.amount > 0 ? `+${row.amount}` : String(row.amount)),
    h("td", {}, String(row.balance_after)));
}

/** Fill ``board`` with the players who have the most coins. */
export async function showCoinsBoard(board) {
  fill(board, h("p", {}, t("common.loading")));
  try {
    const data = await get("/api/coins/leaderboard");
    fill(board,
      coinsNote(),
      data.players.length === 0
        ? h("p", { class: "hint" }, t("coins.board_empty"))
        : scrollable(h("table", { id: "coins-board" },
          h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("ratings.player")), h("th", {}, t("coins.amount")))),
          h("tbody", {}, data.players.map((row) => h("tr", { "data-coins-player": row.username },
            h("td", {}, String(row.rank)),
            h("td", {}, h("a", { href: `#/profile/${encodeURIComponent(row.username)}` }, row.username)),
            h("td", {}, String(row.balance))))))));
  } catch (error) {
    fill(board, h("p", { class: "error" }, errorText(error)));
  }
}
