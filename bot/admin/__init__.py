"""The admins' view: what only an admin can fix, per ClusterQueue. Pure (bot.admin.view)."""
