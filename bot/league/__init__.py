"""Leagues' pure calculation layer (issue #20): ratings, standings, pairings, campaigns.

Every module here is plain data in, plain data out: no I/O, no clock, no database, no
randomness that is not a parameter. The league service stores results and calls these
functions; recomputing from the stored results always gives the same answer.
"""
