"""BotService: every use case over one cluster view, put together (bot.service says where each one lives)."""

from __future__ import annotations

from bot.service.fitting import FitCases
from bot.service.views import ClusterViews
from bot.service.watches import PersonalWatches


class BotService(PersonalWatches, ClusterViews, FitCases):
    """Every use case over one cluster view: a `Service` (bot.multicluster.ClusterRouter is the other, over
    several clusters' BotServices)."""
