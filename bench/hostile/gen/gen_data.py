# gen_data.py ROWS [GROUPS] [TRACKS] > file.csv : chinchilla-like synthetic data
import sys, random, math
n=int(sys.argv[1]); g=int(sys.argv[2]) if len(sys.argv)>2 else 1; t=int(sys.argv[3]) if len(sys.argv)>3 else 1
random.seed(1)
print("grp,track,N,D,C,loss")
for i in range(n):
    N=10**random.uniform(7,10); D=10**random.uniform(9,12)
    tr=i%t
    L=1.7+400*N**-0.34+410*D**-0.28*(1+0.05*tr)
    L*=math.exp(random.gauss(0,0.01))
    print(f"g{i%g},t{tr},{N:.6g},{D:.6g},{6*N*D:.6g},{L:.6g}")
