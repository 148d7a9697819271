"""Exception types of the library. Every error a user can cause has its own class."""

from __future__ import annotations


class SensorGhostsError(Exception):
    """Base class of every error this library raises on bad input."""


class CardSetError(SensorGhostsError):
    """A card-set data file is malformed or inconsistent.

    ``source`` names the file, ``line`` the 1-based line (None for the whole file).
    """

    def __init__(self, message: str, *, source: str = "<card set>", line: int | None = None):
        self.source = source
        self.line = line
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")
        self.reason = message


class NotationError(SensorGhostsError):
    """Text or JSON that does not parse as a setup or state.

    ``line`` and ``column`` are 1-based; ``token`` quotes the offending text.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        token: str | None = None,
        source: str = "<text>",
    ):
        self.reason = message
        self.line = line
        self.column = column
        self.token = token
        self.source = source
        where = source
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        quoted = f" (at {token!r})" if token is not None else ""
        super().__init__(f"{where}: {message}{quoted}")


class InvalidSetupError(SensorGhostsError):
    """A setup that parses but breaks setup rules (RULES.md §3).

    ``violations`` lists every broken rule, not only the first.
    """

    def __init__(self, violations: list):
        self.violations = list(violations)
        text = "; ".join(str(v) for v in self.violations)
        super().__init__(f"invalid setup: {text}")


class InvalidStateError(InvalidSetupError):
    """A game state that parses but breaks the invariants every reachable state
    keeps (``validation.validate_state``); ``violations`` lists them all."""

    def __init__(self, violations: list):
        super().__init__(violations)
        text = "; ".join(str(v) for v in self.violations)
        self.args = (f"invalid state: {text}",)

    def __str__(self) -> str:
        return str(self.args[0])


class InvalidArgumentError(SensorGhostsError, ValueError):
    """A library function called with a value it does not take (an unknown
    backend, a negative seed, a direction letter that is not U, D, L or R):
    a ``ValueError`` too, as these were before they joined the project's errors."""


class NotWritableError(SensorGhostsError, TypeError):
    """``dump`` given something the notation has no form for (a ``TypeError``
    too: the argument is of the wrong type)."""


class UnknownCardError(SensorGhostsError, KeyError):
    """A card id that is not in the card set (a ``KeyError`` too, as before)."""

    def __init__(self, card_id: object, set_name: str = ""):
        self.card_id = card_id
        where = f" {set_name!r}" if set_name else ""
        self.reason = f"card {card_id!r} is not in the card set{where}"
        super().__init__(self.reason)

    def __str__(self) -> str:
        return self.reason


class IllegalTurnError(SensorGhostsError):
    """A turn that is not legal in the given state; ``reason`` says why."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class GameOverError(IllegalTurnError):
    """A turn was applied to a finished game."""


class TimeLimitError(SensorGhostsError):
    """A count or search that did not finish within its time limit."""

    def __init__(self, seconds: float, done: str = ""):
        self.seconds = seconds
        self.done = done
        super().__init__(f"did not finish within {seconds:g} s" + (f" ({done})" if done else ""))
