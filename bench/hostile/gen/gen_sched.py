# gen_sched.py RUNS MAXSTEP ROWS_PER_RUN > file.csv : runs logged to MAXSTEP
import sys, math
R=int(sys.argv[1]); M=int(sys.argv[2]); K=int(sys.argv[3])
print("run,step,lr,loss")
for r in range(R):
    for k in range(1,K+1):
        s=int(M*k/K)
        lr=3e-4 if r%2==0 else 3e-4*(0.5+0.5*math.cos(math.pi*s/M))+1e-6
        print(f"r{r},{s},{lr:.6g},{2.5+2*(s+100)**-0.3 - 10*(3e-4-lr):.6g}")
