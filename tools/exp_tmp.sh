set -e
for v in base NOFILL NOMMA; do
  fl=""; [ $v != base ] && fl="-DTG_EXP_$v"
  (cmake -S . -B bx-$v -G Ninja -DTG_DEPS_DIR=$PWD/.deps -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DTG_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS="$fl" >/dev/null && cmake --build bx-$v -j6 --target convnd_bwd_data >/dev/null && echo built $v) &
done
wait
for v in base NOFILL NOMMA; do
  for lay in "nhwgc"; do
    echo "$v seed:"; bx-$v/examples/convnd_bwd_data 0 1 1 2 1 128 256 128 3 3 71 71 2 2 1 1 1 1 1 1 --layout $lay --dtype fp16 --backend gpu --repeat 20 | grep Perf
    echo "$v resnet:"; bx-$v/examples/convnd_bwd_data 0 1 1 2 1 64 64 64 3 3 56 56 1 1 1 1 1 1 1 1 --layout $lay --dtype fp16 --backend gpu --repeat 20 | grep Perf
  done
done
