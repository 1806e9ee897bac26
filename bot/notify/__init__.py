"""bot.notify"""
