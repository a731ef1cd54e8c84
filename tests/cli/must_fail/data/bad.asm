GEMM uop=0:1 iter=1x1 dst=0,0 src=0,0 wgt=0,0 reset=2
