set -u
cmake -S cuda/scripts/superbuild -B /tmp/vb -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CXX_FLAGS="-include system_error" -DCMAKE_PREFIX_PATH="$PWD/build-deps/prefix;$PWD/build-cli-deps/prefix" > $OUT/cfg.log 2>&1
ninja -C /tmp/vb -j16 vif_sweep > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
SW=$(find /tmp/vb -name vif-sweep -type f | head -1)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
export VIF_SWEEP_NO_GATE=1
timeout 200 $NCU --clock-control none --kernel-name-base mangled --kernel-name regex:'int_scale_kernelILi0ELi8E' --launch-skip 3 --launch-count 1 --set full --page details $SW --sizes 1920x1080 --bitdepths 8 --runs 5 --warmup 2 --out /tmp > $OUT/ncu_s0_details.txt 2>&1; echo "details rc=$?"
timeout 200 $NCU --clock-control none --kernel-name-base mangled --kernel-name regex:'int_scale_kernelILi0ELi8E' --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv $SW --sizes 1920x1080 --bitdepths 8 --runs 5 --warmup 2 --out /tmp > $OUT/ncu_s0_source.csv 2>&1; echo "source rc=$?"
cuobjdump -sass $(find /tmp/vb -name 'engine.cu.o' | head -1) > /tmp/engine.sass 2>&1; gzip -c /tmp/engine.sass > $OUT/engine.sass.gz
gzip -f $OUT/ncu_s0_source.csv
grep -E "Duration|Issue Slots Busy|Executed Ipc|Achieved Occupancy|Theoretical Occupancy|Stall|Registers Per|Warp Cycles Per Issued|Pipe|Throughput|One or More|No Eligible" $OUT/ncu_s0_details.txt | head -60
