#!/usr/bin/env bash
# On the GPU machine (run tool, carry build-cli-deps): build the CUDA vif CLI, make a 1,200-frame
# 1080p 8-bit pair in /tmp (page cache), time the whole process three times, time one frame
# (start-up to first score), and run --check-parity on a golden case and on the 1080p pair
# (integer and float). This is the script behind the end-to-end figures in docs/performance.md.
set -u
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_ENABLE_CUDA=ON -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TESTS=OFF -DVIF_BUILD_BENCHMARKS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/build-cli-deps/prefix > $OUT/cfg.log 2>&1 || { tail -20 $OUT/cfg.log; exit 1; }
ninja -C /tmp/b -j16 vif_cli > $OUT/build.log 2>&1 || { grep -A5 error $OUT/build.log | head -30; exit 1; }
V=$(find /tmp/b -name vif -type f -perm -u+x | head -1)
python3 - <<'PY'
import numpy as np
w,h,n=1920,1080,1200
rng=np.random.default_rng(1)
y,x=np.mgrid[0:h,0:w+64]
base=np.clip((0.5+0.25*np.sin(x/23.0)*np.cos(y/17.0)+0.2*np.sin((x+y)/5.0))*255+rng.normal(0,5,x.shape),0,255)
noisy=np.clip(base+rng.normal(0,8,base.shape),0,255).astype(np.uint8); base=base.astype(np.uint8)
ch=np.full(2*(w//2)*(h//2),128,np.uint8).tobytes()
with open('/tmp/r.yuv','wb') as fr, open('/tmp/d.yuv','wb') as fd:
    for i in range(n):
        s=i%64
        fr.write(np.ascontiguousarray(base[:,s:s+w]).tobytes()); fr.write(ch)
        fd.write(np.ascontiguousarray(noisy[:,s:s+w]).tobytes()); fd.write(ch)
PY
cat /tmp/r.yuv /tmp/d.yuv > /dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
for i in 1 2 3; do /usr/bin/time -f "wall %e s" $V -r /tmp/r.yuv -d /tmp/d.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda -q -o /tmp/o.json; grep -m1 '"fps"' /tmp/o.json; done
/usr/bin/time -f "wall %e s (1 frame)" $V -r /tmp/r.yuv -d /tmp/d.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda --frames 1 -q -o /tmp/o1.json
$V -r testdata/cases/kodim23pan_576x324_yuv420p_ref.yuv -d testdata/cases/kodim23pan_576x324_yuv420p_crf35.yuv -w 576 -h 324 -p 420 -b 8 --check-parity; echo "parity rc=$?"
$V -r /tmp/r.yuv -d /tmp/d.yuv -w 1920 -h 1080 -p 420 -b 8 --check-parity --frames 50 -q; echo "parity 1080p rc=$?"
$V -r /tmp/r.yuv -d /tmp/d.yuv -w 1920 -h 1080 -p 420 -b 8 --check-parity --variant float --frames 20 -q; echo "parity float rc=$?"
