"""Writes two_recipes.csv: synthetic runs of two recipes, for `scalinglaws compare`.

Both recipes follow Chinchilla's law with Hoffmann et al.'s (2022) parameters
(E 1.69, A 406.4, alpha 0.34, B 410.7, beta 0.28). In recipe `new`, parameters and tokens are
each worth sqrt(2) times as much (A and B scaled by sqrt(2)^-alpha and sqrt(2)^-beta), so `new`
is worth exactly twice the compute of `baseline` at every budget. Each recipe has 40 runs on the
same grid of (N, D): 8 sizes from 5e7 to 1.6e10, 5 token counts around 20 tokens per parameter.
The loss carries 1 % multiplicative noise (the scatter of Chinchilla's runs about their fit is
0.8 %). Run with any Python 3: python3 generate.py > two_recipes.csv
"""
import math
import random

random.seed(1)
E, A, ALPHA, B, BETA = 1.69, 406.4, 0.34, 410.7, 0.28
S = math.sqrt(2.0)
print("recipe,N,D,loss")
for name, a, b in [("baseline", A, B), ("new", A * S**-ALPHA, B * S**-BETA)]:
    for i in range(8):
        for j in range(5):
            n = 5e7 * 10 ** (i * 2.5 / 7)
            d = 20 * n * 10 ** ((j - 2) * 0.4)
            loss = (E + a * n**-ALPHA + b * d**-BETA) * math.exp(0.01 * random.gauss(0, 1))
            print(f"{name},{n:.6g},{d:.6g},{loss:.6f}")
