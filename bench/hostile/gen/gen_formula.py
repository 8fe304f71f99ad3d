import sys
n=int(sys.argv[1]); mode=sys.argv[2] if len(sys.argv)>2 else 'sum'
if mode=='sum':     # n terms ~2 bytes each
    f="E + A*(" + "+".join(["N"]*n) + ")^-alpha"
elif mode=='same':
    f="E + " + " + ".join("A*N^-alpha" for _ in range(n))
elif mode=='exps':  # n distinct exponents
    f="E + " + " + ".join(f"A{i}*N^-a{i}" for i in range(n))
elif mode=='params':  # n distinct linear params
    f="E + " + "+".join(f"p{i}*N" for i in range(n))
elif mode=='nest':
    f="E + A*" + "("*n + "N" + ")"*n + "^-alpha"
elif mode=='neg':
    f="E + A*" + "-"*n + "N^-alpha"
elif mode=='pow':
    f="E + A*N" + "^1"*n
elif mode=='exp':
    f="E + A*" + "exp("*n + "N" + ")"*n
print(f)
