"""bot.trace"""
