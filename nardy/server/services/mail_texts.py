"""The texts of the mails the server sends (an address's verification, a password reset), in the five languages of
the site: Russian, English, Georgian, Turkish and Greek.

The browser client translates itself (``nardy/web/i18n``); a mail is written
on the server, so its words live here. Which language a mail speaks is
:func:`mail_language`'s choice: the account's own (``users.language``), else
the one the request names, else the first of the browser's
``Accept-Language`` the site speaks, else English. A count of days or
minutes takes the form its language asks for after a numeral (Russian has
three; Georgian and Turkish keep the noun singular after any number).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

LANGUAGES: Final = ("ru", "en", "ka", "tr", "el")
"""The languages a mail is written in (those of the site)."""
DEFAULT_LANGUAGE: Final = "en"


@dataclass(frozen=True, slots=True)
class Mail:
    """A mail's subject and plain-text body."""

    subject: str
    body: str


def language_tag(tag: str | None) -> str | None:
    """The site's language a language tag (``ru``, ``ru-RU``, ``EL``) names, or ``None`` for another."""
    if not tag:
        return None
    code = tag.strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else None


def accepted_language(header: str | None) -> str | None:
    """The site's language the browser prefers most in an ``Accept-Language`` header, or ``None``."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((header or "").split(",")[:32]):
        tag, _, params = part.partition(";")
        code = language_tag(tag)
        if code is None:
            continue
        weight = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip() == "q":
            try:
                weight = float(value)
            except ValueError:
                continue
        if weight > 0:
            ranked.append((-weight, position, code))
    return min(ranked)[2] if ranked else None


def mail_language(account: str | None, requested: str | None = None, accept_language: str | None = None) -> str:
    """The language of a mail to an account: its own, else the request's, else the browser's, else English."""
    return (language_tag(account) or language_tag(requested) or accepted_language(accept_language)
            or DEFAULT_LANGUAGE)


# ----- counts of days and minutes


def _russian(n: int, one: str, few: str, many: str) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} {one}"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} {few}"
    return f"{n} {many}"


def _one_other(one: str, other: str) -> Callable[[int], str]:
    return lambda n: f"{n} {one if n == 1 else other}"


def _invariable(noun: str) -> Callable[[int], str]:
    return lambda n: f"{n} {noun}"


_DAYS: Final[dict[str, Callable[[int], str]]] = {
    "ru": lambda n: _russian(n, "день", "дня", "дней"),
    "en": _one_other("day", "days"),
    "ka": _invariable("დღის"),
    "tr": _invariable("gün"),
    "el": _one_other("ημέρα", "ημέρες"),
}
"""A number of days as the sentences below use it (Russian: how long a link works; Georgian: «during N days»)."""
_MINUTES: Final[dict[str, Callable[[int], str]]] = {
    "ru": lambda n: _russian(n, "минуту", "минуты", "минут"),
    "en": _one_other("minute", "minutes"),
    "ka": _invariable("წუთის"),
    "tr": _invariable("dakika"),
    "el": _one_other("λεπτό", "λεπτά"),
}

# ----- the mails: subject, then body with {name}, {link} and {days} or {minutes}

_VERIFY: Final[dict[str, tuple[str, str]]] = {
    "ru": (
        "Подтвердите адрес электронной почты",
        "Здравствуйте, {name}!\n\n"
        "Чтобы подтвердить, что это ваш адрес электронной почты на nardy, откройте эту ссылку. "
        "Она действует {days}:\n\n{link}\n\n"
        "Если вы этого не запрашивали, просто не обращайте внимания на это письмо.\n",
    ),
    "en": (
        "Confirm your e-mail address",
        "Hello {name},\n\n"
        "to confirm that this is your e-mail address on nardy, open this link within {days}:\n\n{link}\n\n"
        "If you did not ask for it, ignore this mail.\n",
    ),
    "ka": (
        "დაადასტურეთ თქვენი ელფოსტის მისამართი",
        "გამარჯობა, {name}!\n\n"
        "იმის დასადასტურებლად, რომ ეს nardy-ზე თქვენი ელფოსტის მისამართია, გახსენით ეს ბმული "
        "{days} განმავლობაში:\n\n{link}\n\n"
        "თუ ეს არ მოგითხოვიათ, უბრალოდ უგულებელყავით ეს წერილი.\n",
    ),
    "tr": (
        "E-posta adresinizi doğrulayın",
        "Merhaba {name},\n\n"
        "Bu e-posta adresinin nardy hesabınıza ait olduğunu doğrulamak için bu bağlantıyı {days} içinde açın:"
        "\n\n{link}\n\n"
        "Bunu siz istemediyseniz bu e-postayı dikkate almayın.\n",
    ),
    "el": (
        "Επιβεβαιώστε τη διεύθυνση email σας",
        "Γεια σας, {name},\n\n"
        "Για να επιβεβαιώσετε ότι αυτή είναι η διεύθυνση email σας στο nardy, ανοίξτε αυτόν τον σύνδεσμο. "
        "Ισχύει για {days}:\n\n{link}\n\n"
        "Αν δεν το ζητήσατε εσείς, αγνοήστε αυτό το μήνυμα.\n",
    ),
}

_RESET: Final[dict[str, tuple[str, str]]] = {
    "ru": (
        "Новый пароль для nardy",
        "Здравствуйте, {name}!\n\n"
        "Чтобы задать новый пароль для вашей учётной записи nardy, откройте эту ссылку. "
        "Она действует {minutes}, воспользоваться ею можно один раз:\n\n{link}\n\n"
        "Если вы этого не запрашивали, просто не обращайте внимания на это письмо: ваш пароль не изменится.\n",
    ),
    "en": (
        "Set a new password",
        "Hello {name},\n\n"
        "to set a new password for your nardy account, open this link within {minutes}; it works once:\n\n"
        "{link}\n\n"
        "If you did not ask for it, ignore this mail: your password stays.\n",
    ),
    "ka": (
        "ახალი პაროლის დაყენება",
        "გამარჯობა, {name}!\n\n"
        "nardy-ის ანგარიშისთვის ახალი პაროლის დასაყენებლად გახსენით ეს ბმული {minutes} განმავლობაში; "
        "ბმული მხოლოდ ერთხელ მუშაობს:\n\n{link}\n\n"
        "თუ ეს არ მოგითხოვიათ, უბრალოდ უგულებელყავით ეს წერილი: თქვენი პაროლი არ შეიცვლება.\n",
    ),
    "tr": (
        "Yeni parola belirleyin",
        "Merhaba {name},\n\n"
        "Bu bağlantıyı {minutes} içinde açarak nardy hesabınız için yeni bir parola belirleyebilirsiniz; "
        "bağlantı yalnızca bir kez çalışır:\n\n{link}\n\n"
        "Bunu siz istemediyseniz bu e-postayı dikkate almayın; parolanız değişmez.\n",
    ),
    "el": (
        "Ορίστε νέο κωδικό πρόσβασης",
        "Γεια σας, {name},\n\n"
        "Για να ορίσετε νέο κωδικό πρόσβασης στον λογαριασμό σας στο nardy, ανοίξτε αυτόν τον σύνδεσμο. "
        "Ισχύει για {minutes} και μόνο μία φορά:\n\n{link}\n\n"
        "Αν δεν το ζητήσατε εσείς, αγνοήστε αυτό το μήνυμα· ο κωδικός σας δεν αλλάζει.\n",
    ),
}


def _language(language: str) -> str:
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def verification_mail(language: str, *, username: str, link: str, days: int) -> Mail:
    """The mail asking to confirm an address by opening ``link`` within ``days`` days."""
    code = _language(language)
    subject, body = _VERIFY[code]
    return Mail(subject, body.format(name=username, link=link, days=_DAYS[code](days)))


def reset_mail(language: str, *, username: str, link: str, minutes: int) -> Mail:
    """The mail with a link that sets a new password once, within ``minutes`` minutes."""
    code = _language(language)
    subject, body = _RESET[code]
    return Mail(subject, body.format(name=username, link=link, minutes=_MINUTES[code](minutes)))
