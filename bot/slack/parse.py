"""What a person asked the bot, from the text of a mention, a DM or a slash command. Pure and total.

`parse(text)` understands the subcommands (`why`, `queue`, `watch`, `unwatch`, `help`), plain questions in
English or French ("why is train-octobre pending?", "pourquoi train-octobre est en attente ?"), the usual ways
to name a job (`ns/name`, `kind/name`, `ns/kind/name`, `-n ns`, `--namespace=ns`, "in ns", "dans ns"), a
pasted kubectl line, and what Slack does to text (mentions, `<http://x|x>` links, `&lt;` entities, `code`,
*bold*, _italics_). Any input gives a `Question`, never an exception; a namespace or name it returns is always
a valid Kubernetes name.

The word "job" on its own does not fix the kind: people say "my job" of a RayJob too, so the engine looks the
name up among every kind. A precise kind word ("rayjob x", "pytorchjob x"), a `kind/name` path or a kubectl line
(`kubectl get job x`) does fix it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum

from bot.trace.resolve import JOB_KIND_GROUPS, canonical_kind

MAX_INPUT = 4000  # characters read; a question is a line, not a document
MAX_NAME = 253
MAX_NAMESPACE = 63
_MAX_RECEIVED = 20_000  # longer text is cut before anything else
_MENTION_PASSES = 8


class Command(StrEnum):
    WHY = "why"
    QUEUE = "queue"
    WATCH = "watch"
    UNWATCH = "unwatch"
    WHO = "who"  # who holds a resource, cluster-wide (`subject`: the resource, flavor, ClusterQueue words)
    MUTE = "mute"  # no proactive DM at all, until UNMUTE
    UNMUTE = "unmute"
    HELP = "help"
    ADMIN = "admin"  # the admins' view
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Question:
    command: Command
    namespace: str | None = None
    name: str | None = None
    kind: str | None = None  # canonical ("RayJob"); None: any kind
    raw: str = ""  # the text as received (at most MAX_INPUT characters of it)
    candidates: tuple[str, ...] = ()  # other words that could be the name, best first
    notes: tuple[str, ...] = ()  # truncated | invalid-name | invalid-namespace | conflicting-namespace
    focus: str = ""  # "when" (when will it run?) | "who" (who is using / holds what it needs?)
    subject: tuple[str, ...] = ()  # Command.WHO: the words naming a resource, flavor or ClusterQueue
    cluster: str | None = None  # the cluster it names, when the bot serves several (Service.scope); None: any

    @property
    def target(self) -> str | None:
        """ "ns/name", "name", or None."""
        if self.name is None:
            return None
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS_LABEL = re.compile(_LABEL)
_DNS_SUBDOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")


def is_namespace(text: str) -> bool:
    """A DNS-1123 label: what a namespace name must be."""
    return len(text) <= MAX_NAMESPACE and _DNS_LABEL.fullmatch(text) is not None


def is_name(text: str) -> bool:
    """A DNS-1123 subdomain: what the name of a job, a Workload or a LocalQueue must be."""
    return len(text) <= MAX_NAME and _DNS_SUBDOMAIN.fullmatch(text) is not None


# --- Slack's formatting -----------------------------------------------------------------------------------

_USER_MENTION = re.compile(r"<@([A-Za-z0-9]+)(?:\|[^<>]*)?>")
_SPECIAL = re.compile(r"<[!#][^<>]*>")  # <!here>, <!channel>, <!subteam^S1|@x>, <#C1|general>, <!date^...>
_LINK = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:(?://)?", re.IGNORECASE)
_ENTITIES = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&#39;": "'"}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))
# Formatting, quotes, brackets and sentence punctuation: word separators here ('-', '.', '/', '=' are kept).
_SEPARATORS = re.compile(r"[\s*_~`\"'“”«»‘’‚„()\[\]{}<>,;:!?¿¡…|]+")


def _without_mentions(text: str, bot_user_id: str | None) -> str:
    """The bot's own mention vanishes wherever it sits (repeatedly: removing one may complete another);
    another person's mention separates words. Without a bot id, every mention counts as the bot's."""
    if bot_user_id is None:
        own = _USER_MENTION
    else:
        own = re.compile(rf"<@{re.escape(bot_user_id)}(?:\|[^<>]*)?>")
    for _ in range(_MENTION_PASSES):
        text, count = own.subn("", text)
        if count == 0:
            break
    return _USER_MENTION.sub(" ", text)


def _link(match: re.Match[str]) -> str:
    target, label = match.group(1), match.group(2)
    if label:
        return f" {label} "
    return f" {_SCHEME.sub('', target)} "


def _normalized(text: str) -> str:
    text = _SPECIAL.sub(" ", text)
    text = _LINK.sub(_link, text)
    text = _ENTITY.sub(lambda match: _ENTITIES[match.group(0)], text)
    text = unicodedata.normalize("NFKC", text).lower()
    return _SEPARATORS.sub(" ", text)


# --- words ------------------------------------------------------------------------------------------------

_HELP = frozenset({"help", "aide", "?", "h", "-h", "--help", "usage", "commands", "commandes"})
_MUTE = {"mute": Command.MUTE, "sourdine": Command.MUTE, "unmute": Command.UNMUTE}
_GREETINGS = frozenset({"hi", "hello", "hey", "bonjour", "salut", "coucou", "yo"})
_SUBCOMMANDS = {
    "why": Command.WHY,
    "pourquoi": Command.WHY,
    "explain": Command.WHY,
    "explique": Command.WHY,
    "expliquer": Command.WHY,
    "status": Command.WHY,
    "statut": Command.WHY,
    "queue": Command.QUEUE,
    "file": Command.QUEUE,
    "lq": Command.QUEUE,
    "localqueue": Command.QUEUE,
    "watch": Command.WATCH,
    "follow": Command.WATCH,
    "subscribe": Command.WATCH,
    "suivre": Command.WATCH,
    "surveiller": Command.WATCH,
    "unwatch": Command.UNWATCH,
    "unfollow": Command.UNWATCH,
    "unsubscribe": Command.UNWATCH,
    "who": Command.WHO,
    "qui": Command.WHO,
}
_GENERIC_KIND_WORDS = frozenset({"job", "jobs"})
_KUBECTL = frozenset({"kubectl", "kubecolor", "kubectl.exe", "oc"})
_KUBECTL_SHORT = frozenset({"k", "kc"})
_VERBS = frozenset(
    {"get", "describe", "edit", "logs", "delete", "explain", "annotate", "label", "patch", "wait", "events", "top"}
)
_NAMESPACE_FLAGS = frozenset({"-n", "--namespace"})
_VALUE_FLAGS = frozenset(
    {
        "-o",
        "--output",
        "--context",
        "--cluster",
        "--user",
        "--kubeconfig",
        "-l",
        "--selector",
        "--field-selector",
        "-c",
        "--container",
        "--sort-by",
        "--template",
        "-f",
        "--filename",
        "--since",
        "--tail",
        "-L",
        "--label-columns",
        "--as",
        "--request-timeout",
        "-s",
        "--server",
        "--kind",
        "-k",
    }
)
_NAMESPACE_MARKERS = frozenset({"in", "dans", "from", "within"})
_NAMESPACE_WORDS = frozenset({"namespace", "ns", "espace"})
_FILLERS = frozenset({"the", "le", "la", "l", "my", "mon", "our", "notre", "de", "du", "d"})
_STOPWORDS_TEXT = """
    why whys what whats is isnt isn are arent was my the a an this that it its it's of for on in to and or with
    at by be been being has have had do does doesnt dont did i im we our your you me us can could would will wont
    please pls tell show see look check about up explain status still yet again now today so long forever taking
    take takes pending waiting wait waits stuck queued queue queueing not running run runs start started starting
    starts scheduled schedule admitted admit admission blocked hanging hang here there ok okay thanks thank kueue
    bot help job jobs workload pod pods namespace ns get describe kubectl any anything happening happen going
    hi hello hey new old since hours hour minutes minute min day days ago mine
    pourquoi est es sont etait mon ma mes le la les l un une des du de d ce cet cette ne n pas plus toujours encore
    qu que quoi qui il elle ils se s lance lancee lances passe passer dans sur pour par et ou avec sans bonjour
    salut stp svp merci attente attend attendre en file tache taches travail bloque demarre demarrer tourne fait
    aide vous tu moi nous y a c j ai toujours depuis heures heure jour jours minutes ok
    est-il est-elle est-ce a-t-il a-t-elle reste-t-il attend-il tourne-t-il va-t-il
    re-check recheck re-run rerun follow-up e-mail self-hosted long-running right-now
"""
# "when will X run?", "who is using the GPUs?" (English and French); their words are no job name.
_WHEN_WORDS = frozenset({"when", "quand", "eta"})
_WHO_WORDS = frozenset({"who", "whos", "qui"})
_HOLD_WORDS = frozenset(
    {"using", "uses", "use", "holds", "holding", "hold", "hogging", "occupying", "utilise", "utilisent",
     "tient", "tiennent", "prend", "prennent", "occupe", "occupent", "monopolise"}
)  # fmt: skip
_FOCUS_STOPWORDS = """
    when quand eta who whos using uses use holds holding hold hogging occupying utilise utilisent tient tiennent
    prend prennent occupe occupent monopolise gpu gpus cpu cpus memory capacity quota resources ressources
    partira partir demarrera commencera will va sera going partira-t-il demarrera-t-il commencera-t-il needed needs
"""
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split()) | frozenset(_FOCUS_STOPWORDS.split())


def _focus(tokens: list[str]) -> str:
    words = set(tokens)
    if words & _WHO_WORDS and words & _HOLD_WORDS:
        return "who"
    if words & _WHEN_WORDS:
        return "when"
    return ""


_SUBJECT_SKIP = (
    _WHO_WORDS
    | _HOLD_WORDS
    | _NAMESPACE_MARKERS
    | _FILLERS
    | frozenset(
        {"is", "are", "the", "les", "des", "most", "le", "plus", "right", "now", "currently", "en", "ce", "moment"}
    )
)
_RESOURCE_WORDS = frozenset({"gpu", "gpus", "cpu", "cpus", "memory", "mem", "ram", "memoire", "mémoire", "pods"})
MAX_SUBJECT = 3


def _subject(tokens: list[str], *, phrase: bool) -> tuple[str, ...]:
    """The words of "who [resource|flavor] [clusterqueue]": after `/kueue who`, any name-like word; in a
    phrase ("who is using the GPUs?"), only the resource words and the names of resources ("nvidia.com/gpu")."""
    found: list[str] = []
    for index, token in enumerate(tokens):
        word = _valid_token(token)
        if not word or word in _SUBJECT_SKIP or word in found:
            continue
        resource = "/" in word and all(is_name(part) for part in word.split("/", 1))
        after_in = index > 0 and _valid_token(tokens[index - 1]) in _NAMESPACE_MARKERS  # "... in gpu-cq"
        named = word not in _STOPWORDS and is_name(word)
        if word in _RESOURCE_WORDS or resource or (named and (after_in or not phrase)):
            found.append(word)
    return tuple(found[:MAX_SUBJECT])


def _kind(token: str) -> str | None:
    """The canonical kind a word names ("rayjob", "jobs.batch", "rayjobs.ray.io"), or None."""
    if "." in token:
        base, group = token.split(".", 1)
        groups = {*JOB_KIND_GROUPS.values(), "kueue.x-k8s.io"} - {""}
        if not any(group == known or group.endswith("." + known) for known in groups):
            return None
        token = base
    return canonical_kind(token)


def _valid_token(token: str) -> str:
    return token.strip(".-/=")


# --- the scan ---------------------------------------------------------------------------------------------


@dataclass
class _Found:
    namespace: str | None = None
    namespace_rank: int = 0  # 3: from a path, 2: from a flag, 1: from "in ns"
    name: str | None = None
    name_rank: int = 0  # 4: path, 3: kind word + name, 2: bare word with '-', '.' or a digit, 1: bare word
    kind: str | None = None
    kind_rank: int = 0
    candidates: list[tuple[int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def note(self, code: str) -> None:
        if code not in self.notes:
            self.notes.append(code)

    def set_namespace(self, value: str, rank: int) -> None:
        if not is_namespace(value):
            self.note("invalid-namespace")
            return
        if self.namespace is not None and self.namespace != value:
            self.note("conflicting-namespace")
        if rank > self.namespace_rank:
            self.namespace, self.namespace_rank = value, rank

    def set_name(self, value: str, rank: int) -> None:
        if not is_name(value):
            self.note("invalid-name")
            return
        self.candidates.append((rank, value))
        if rank > self.name_rank:
            self.name, self.name_rank = value, rank

    def set_kind(self, value: str | None, rank: int) -> None:
        if value is not None and rank > self.kind_rank:
            self.kind, self.kind_rank = value, rank


def _path(token: str, found: _Found) -> None:
    """ns/name, kind/name, ns/kind/name (a trailing or doubled slash is forgiven); all valid, or nothing."""
    parts = [part for part in token.split("/") if part]
    namespace: str | None = None
    kind: str | None = None
    if len(parts) == 1:
        found.set_name(parts[0], 2)
        return
    if len(parts) == 2:
        kind = _kind(parts[0])
        namespace = None if kind is not None else parts[0]
    elif len(parts) == 3 and _kind(parts[1]) is not None:
        namespace, kind = parts[0], _kind(parts[1])
    else:
        found.note("invalid-name")
        return
    if namespace is not None and not is_namespace(namespace):
        found.note("invalid-namespace")  # "nvidia.com/gpu" is not a job
        return
    if not is_name(parts[-1]):
        found.note("invalid-name")
        return
    if namespace is not None:
        found.set_namespace(namespace, 3)
    found.set_kind(kind, 3)
    found.set_name(parts[-1], 4)


def _flag_value(token: str, tokens: list[str], index: int) -> tuple[str | None, int]:
    """The value of `-n x`, `-n=x`, `--namespace=x` (or of another flag that takes one), and how many tokens
    it took."""
    if "=" in token:
        return token.split("=", 1)[1], 1
    if token in _NAMESPACE_FLAGS or token in _VALUE_FLAGS:
        return (tokens[index + 1], 2) if index + 1 < len(tokens) else (None, 1)
    return None, 1


def _scan(tokens: list[str], found: _Found, *, kubectl: bool) -> None:
    index = 0
    while index < len(tokens):
        index = _step(tokens, index, found, kubectl=kubectl)


def _step(tokens: list[str], index: int, found: _Found, *, kubectl: bool) -> int:
    """Read what starts at tokens[index] into `found`; the index of the next token to read."""
    token = tokens[index]
    if token.startswith("-") and len(token) > 1:
        return _flag(tokens, index, found, kubectl=kubectl)
    word = _valid_token(token)
    if not word:
        return index + 1
    if word in _NAMESPACE_MARKERS or word in _NAMESPACE_WORDS:
        return _marked_namespace(tokens, index, found)
    if kubectl and word in _VERBS:
        return index + 1
    if "/" in word:
        _path(word, found)
        return index + 1
    kind = _kind(word)
    if kind is not None:
        return _kind_and_name(tokens, index, found, word, kind, kubectl=kubectl)
    _bare_word(word, found)
    return index + 1


def _flag(tokens: list[str], index: int, found: _Found, *, kubectl: bool) -> int:
    """`-n ns`, `--namespace=ns`, kubectl's `-nns`; another flag is skipped with its value."""
    token = tokens[index]
    flag = token.split("=", 1)[0]
    if flag in _NAMESPACE_FLAGS:
        value, taken = _flag_value(token, tokens, index)
    elif kubectl and flag.startswith("-n") and not flag.startswith("--"):  # -nfoo
        value, taken = token[2:].lstrip("="), 1
    else:
        return index + (_flag_value(token, tokens, index)[1] if flag in _VALUE_FLAGS else 1)
    if value:
        found.set_namespace(_valid_token(value), 2)
    return index + taken


def _marked_namespace(tokens: list[str], index: int, found: _Found) -> int:
    """ "in ns", "dans le namespace ns": the namespace after a marker (and fillers)."""
    following = index + 1
    while following < len(tokens) and _valid_token(tokens[following]) in _FILLERS | _NAMESPACE_WORDS:
        following += 1
    if following < len(tokens):
        value = _valid_token(tokens[following])
        if is_namespace(value) and value not in _STOPWORDS and _kind(value) is None:
            found.set_namespace(value, 1)
            return following + 1
    return index + 1


def _skip_flags(tokens: list[str], following: int, found: _Found) -> int:
    """Past the flags after a kind word (`job -n ns x`), taking a namespace flag's value."""
    while following < len(tokens) and tokens[following].startswith("-"):
        token = tokens[following]
        value, taken = _flag_value(token, tokens, following)
        if token.split("=", 1)[0] in _NAMESPACE_FLAGS and value:
            found.set_namespace(_valid_token(value), 2)
        following += taken
    return following


def _kind_and_name(tokens: list[str], index: int, found: _Found, word: str, kind: str, *, kubectl: bool) -> int:
    """A kind word and the name after it ("rayjob x", `kubectl get job -n ns x`)."""
    following = _skip_flags(tokens, index + 1, found)
    name = _valid_token(tokens[following]) if following < len(tokens) else ""
    if not (kubectl or (name and name not in _STOPWORDS and _kind(name) is None and is_name(name))):
        return index + 1
    if kubectl or word not in _GENERIC_KIND_WORDS:
        found.set_kind(kind, 2)
    if name and "/" not in name and is_name(name) and (kubectl or name not in _STOPWORDS):
        found.set_name(name, 3)
        return following + 1
    return index + 1


def _bare_word(word: str, found: _Found) -> None:
    if word in _STOPWORDS or word in _KUBECTL or not is_name(word):
        return
    rank = 2 if any(char in word for char in "-.0123456789") else 1
    if word.isdigit() or len(word) == 1:
        rank = 0  # "42", the "t" of "isn't": kept as candidates, never taken for the name
    found.set_name(word, rank)


def _is_kubectl(tokens: list[str], index: int) -> bool:
    token = tokens[index]
    if token in _KUBECTL:
        return True
    following = tokens[index + 1] if index + 1 < len(tokens) else ""
    return token in _KUBECTL_SHORT and (following in _VERBS or following.startswith("-"))


def _tokens(received: str, bot_user_id: str | None, notes: list[str]) -> tuple[str, list[str]]:
    """The text without the bot's mention (cut to MAX_INPUT, noted), and its words without a leading prompt."""
    cleaned = _without_mentions(received, bot_user_id)
    if len(cleaned) > MAX_INPUT:
        cleaned = cleaned[:MAX_INPUT]
        notes.append("truncated")
    tokens = _normalized(cleaned).split()
    # "$ kubectl ...", "/kueue why ...": a shell prompt, or the command typed into the text
    while tokens and (tokens[0] in {"$", "%", "#"} or tokens[0].startswith("/kueue")):
        tokens = tokens[1:]
    return cleaned, tokens


def _leading_command(tokens: list[str]) -> tuple[Command | None, bool, list[str]]:
    """The subcommand the text starts with (None: none), whether it asks for help, and the words after it."""
    first = tokens[0]
    asks_help = first in _HELP
    command = _SUBCOMMANDS.get(first)
    if command == Command.WHO:
        command = None  # a phrase: "who is using the GPUs?", "who holds what train needs?"
    if asks_help or command is not None:
        return command, asks_help, tokens[1:]
    if first in {"stop", "arrete", "arrête"} and len(tokens) > 1 and tokens[1] in {"watching", "suivre"}:
        return Command.UNWATCH, False, tokens[2:]
    return None, False, tokens


def _scanned(tokens: list[str]) -> _Found:
    """What the words say; the words after a kubectl are read as kubectl's arguments."""
    kubectl_at = next((i for i in range(len(tokens)) if _is_kubectl(tokens, i)), None)
    found = _Found()
    if kubectl_at is not None:
        _scan(tokens[:kubectl_at], found, kubectl=False)
        _scan(tokens[kubectl_at + 1 :], found, kubectl=True)
    else:
        _scan(tokens, found, kubectl=False)
    return found


def _greets(first: str, tokens: list[str]) -> bool:
    """ "hello", "bonjour le bot": a greeting, answered with the help."""
    return first in _GREETINGS and all(token in _GREETINGS | _STOPWORDS for token in tokens)


def _others(found: _Found) -> tuple[str, ...]:
    """The other words that could be the name, best first (stable: first said, first), at most five."""
    others: list[str] = []
    for rank, value in sorted(found.candidates, key=lambda item: -item[0]):
        if rank > 0 and value not in (found.name, found.namespace) and value not in others:
            others.append(value)
    return tuple(others[:5])


def _at_once(cleaned: str, tokens: list[str]) -> tuple[Command, tuple[str, ...]] | None:
    """The command (and the WHO subject) a message says before any job name is looked for: nothing or only
    punctuation ("?" asks for help; "!!!" is not understood), "mute"/"unmute", "admin", `who [gpu] [cq]`."""
    if not tokens:
        mark = cleaned.strip().strip("?¿ \u00a0\u202f")
        return (Command.UNKNOWN if mark else Command.HELP), ()
    first = tokens[0]
    if first in _MUTE and len(tokens) == 1:
        return _MUTE[first], ()
    if first in ("admin", "admins") and len(tokens) == 1:
        return Command.ADMIN, ()
    if _SUBCOMMANDS.get(first) == Command.WHO and _focus(tokens) != "who":  # `who [gpu] [cq]`
        return Command.WHO, _subject(tokens[1:], phrase=False)
    return None


def parse(text: str, *, bot_user_id: str | None = None) -> Question:
    """The question in `text`. Total: any string gives a Question."""
    received = (text or "")[:_MAX_RECEIVED]
    raw = received[:MAX_INPUT]
    notes: list[str] = []
    cleaned, tokens = _tokens(received, bot_user_id, notes)
    said = _at_once(cleaned, tokens)
    if said is not None:
        return Question(said[0], raw=raw, notes=tuple(notes), subject=said[1])
    first = tokens[0]
    command, asks_help, tokens = _leading_command(tokens)
    found = _scanned(tokens)
    notes.extend(found.notes)
    if found.name is None and command is None:
        command = Command.HELP if asks_help or _greets(first, tokens) else Command.UNKNOWN
    if command == Command.HELP or (asks_help and found.name is None):
        return Question(Command.HELP, raw=raw, notes=tuple(notes))
    focus = _focus(tokens) if command in (None, Command.WHY, Command.UNKNOWN) else ""
    if focus == "who" and found.name is None:  # "who is using the GPUs?": cluster-wide
        return Question(Command.WHO, raw=raw, notes=tuple(notes), subject=_subject(tokens, phrase=True))
    if focus and command == Command.UNKNOWN:
        command = Command.WHY  # "who is using the GPUs?": understood, the job is asked for (bot.slack.app)
    return Question(
        command=command or Command.WHY,
        namespace=found.namespace,
        name=found.name,
        kind=None if command == Command.QUEUE else found.kind,
        raw=raw,
        candidates=_others(found),
        notes=tuple(notes),
        focus=focus,
    )


# --- the language of a question ---------------------------------------------------------------------------

_FRENCH_MARKERS = frozenset(
    {"utilise", "utilisent", "attente", "attend", "bloque", "bloquee", "demarre", "demarrera", "tourne", "tournera",
     "mon", "ma", "mes", "est", "toujours", "encore", "tache", "partira", "commencera"}
)  # fmt: skip
_ENGLISH_MARKERS = frozenset(
    {"using", "uses", "pending", "waiting", "wait", "stuck", "running", "run", "start", "my", "is", "isnt", "still",
     "will"}
)  # fmt: skip


def question_language(text: str) -> str | None:
    """ "fr" or "en" when the question's words say so ("pourquoi train est en attente ?"), None when they do not
    (a bare name, a command: `why`, `queue`, `help` are everyone's; as many words of each): then the asker's
    Slack locale decides."""
    folded = unicodedata.normalize("NFKD", text.lower())
    words = re.findall(r"[a-z]+", "".join(c for c in folded if not unicodedata.combining(c)))
    french = sum(1 for word in words if word in _FRENCH_MARKERS)
    english = sum(1 for word in words if word in _ENGLISH_MARKERS)
    if french > english:
        return "fr"
    if english > french:
        return "en"
    return None
