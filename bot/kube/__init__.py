"""bot.kube"""
