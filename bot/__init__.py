"""kueue-bot: explains why a job is pending on a Kueue-managed Kubernetes cluster."""

from bot import engine as engine  # first: which engine runs, before any module of bot.trace is imported

__version__ = "0.1.0"
