// Browser notifications: whether this browser has them, and the player's permission, asked for on demand.

/** Whether notifications can be shown here at all (the browser has them, and the page is secure). */
export const notificationsAvailable = () => "Notification" in window && window.isSecureContext !== false;

/** Whether notifications are allowed now; asks the browser once when the player has not answered yet. */
export async function askNotificationPermission() {
  if (!notificationsAvailable()) return false;
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  return permission === "granted";
}
