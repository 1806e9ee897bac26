"""bot.slack"""
