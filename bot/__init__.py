"""kueue-bot: explains why a job is pending on a Kueue-managed Kubernetes cluster."""

__version__ = "0.1.0"
