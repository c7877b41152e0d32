"""Words printed on the cards, in the card's language (not the viewer's).

A printed deck keeps the language it was built in, whatever language the curator's
browser uses, so these are plain tables rather than gettext catalogues.  Activity's
words follow the rulebook (activity.cs.md: Řetěz, Rým; nakreslit, popsat, pantomima).
"""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "pl": {
        "set": "zestaw",
        "chain": "ŁAŃCUCH",
        "rhyme": "RYM",
        "draw": "rysuj",
        "describe": "opisz",
        "mime": "pokaż",
        "open": "gra otwarta",
        "activity": "ACTIVITY",
        "card": "karta",
        "number": "Liczba",
        "letter": "Litera",
        "colour": "Kolor",
        "answer": "Odpowiedź",
        "question": "Pytanie",
        "question_no": "Pytanie nr",
        "answer_to": "Odpowiedź na pytanie nr",
        "team_id": "ID drużyny",
        "portal": "Więcej o temacie",
        "periods": "Okresy",
        "red": "czerwony",
        "yellow": "żółty",
        "green": "zielony",
        "blue": "niebieski",
        "white": "biały",
    },
    "en": {
        "set": "set",
        "chain": "CHAIN",
        "rhyme": "RHYME",
        "draw": "draw",
        "describe": "describe",
        "mime": "mime",
        "open": "open game",
        "activity": "ACTIVITY",
        "card": "card",
        "number": "Number",
        "letter": "Letter",
        "colour": "Colour",
        "answer": "Answer",
        "question": "Question",
        "question_no": "Question no.",
        "answer_to": "Answer to question no.",
        "team_id": "Team ID",
        "portal": "More on the topic",
        "periods": "Periods",
        "red": "red",
        "yellow": "yellow",
        "green": "green",
        "blue": "blue",
        "white": "white",
    },
    "cs": {
        "set": "sada",
        "chain": "ŘETĚZ",
        "rhyme": "RÝM",
        "draw": "nakreslit",
        "describe": "popsat",
        "mime": "pantomima",
        "open": "otevřená hra",
        "activity": "ACTIVITY",
        "card": "karta",
        "number": "Číslo",
        "letter": "Písmeno",
        "colour": "Barva",
        "answer": "Odpověď",
        "question": "Otázka",
        "question_no": "Otázka č.",
        "answer_to": "Odpověď na otázku č.",
        "team_id": "ID týmu",
        "portal": "Více k tématu",
        "periods": "Období",
        "red": "červená",
        "yellow": "žlutá",
        "green": "zelená",
        "blue": "modrá",
        "white": "bílá",
    },
    "de": {
        "set": "Satz",
        "chain": "KETTE",
        "rhyme": "REIM",
        "draw": "zeichnen",
        "describe": "beschreiben",
        "mime": "pantomimisch",
        "open": "offenes Spiel",
        "activity": "ACTIVITY",
        "card": "Karte",
        "number": "Zahl",
        "letter": "Buchstabe",
        "colour": "Farbe",
        "answer": "Antwort",
        "question": "Frage",
        "question_no": "Frage Nr.",
        "answer_to": "Antwort auf Frage Nr.",
        "team_id": "Team-ID",
        "portal": "Mehr zum Thema",
        "periods": "Zeiträume",
        "red": "rot",
        "yellow": "gelb",
        "green": "grün",
        "blue": "blau",
        "white": "weiß",
    },
}

#: Activity rulebook, Play: how each board area asks for the term to be presented.
SLOT_FORMS = {"A": "draw", "B": "describe", "C": "mime", "D": "draw", "E": "describe", "F": "mime"}
#: The icon printed beside each form (DejaVu Sans has these glyphs).
FORM_ICONS = {"draw": "✎", "describe": "❝", "mime": "☺"}
#: Fields moved for the special tasks (Activity rulebook: chain +4, rhyme +5).
SPECIAL_POINTS = {"chain": 4, "rhyme": 5}
#: Knowledge? colours (rulebook, Colour cards) and how they print.
KNOWLEDGE_COLOURS = {
    "red": "#d32f2f",
    "yellow": "#fbc02d",
    "green": "#388e3c",
    "blue": "#1976d2",
    "white": "#ffffff",
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])
