"""The admins' view (issue 17, item 3): what only an admin can fix, per ClusterQueue. Pure (bot.admin.view)."""
