"""Twill-style optimal scheduling: dependence graphs, machine models, modulo
scheduling and the joint software-pipelining / warp-assignment problem."""
