#!/usr/bin/env bash
# Session 5 device run: GPU tests (main M), split stack (E) vs M, sorted records / 24-bit keys (R) vs M,
# pbrt-book M vs A (pre-bump), full bench set M, ncu last.
set -u
D=$PWD/.devcarry
export LD_LIBRARY_PATH=$D/lib WP_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
O=/tmp/o; mkdir -p $O
fin() { cd $O && tar czf $OUT/json.tgz *.json *.log 2>/dev/null; }
trap fin EXIT
trap "exit 1" TERM
ok() { [ $SECONDS -lt $1 ] || { echo "(skipped: ${SECONDS}s)"; return 1; }; }
for v in A M E R; do for f in $D/$v/*.xz; do [ -f "$f" ] && xz -T4 -d "$f" & done; done; wait; for v in A M E R; do chmod +x $D/$v/*; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/pub && tar xJf tests/parity/published.tar.xz -C /tmp/pub
P=/tmp/pub/published VA=/tmp/pub/published/veach-ajar/veach-ajar.pbrt
SP=scenes/sponza.json DR=scenes/dragon.json HE=scenes/helmet.json RT=scenes/rtiow.json CB=scenes/cornell-box.json
echo "== gpu tests M $SECONDS"
(cd $D/M && timeout 150 ./wp_gpu_tests --gtest_filter='-*Denoiser*' > $O/gputests.log 2>&1; echo "rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $O/gputests.log | tr '\n' ' ')"; grep -E '^\[  FAILED|Failure' $O/gputests.log | head)
echo "== split stack E vs M, wavefront $SECONDS"
for r in 1 2; do for v in M E; do ok 250 || break 2
  timeout 60 $D/$v/wavepath bench --backend gpu --repeat 5 --spp 64 --modes wavefront $SP $DR $HE $RT --json $O/ss_${v}_$r.json > $O/ss_${v}_$r.log 2>&1
  echo "-- $v round $r"; python3 $D/summ.py $O/ss_${v}_$r.json
done; done
echo "== ray sort: indices vs records, 25 vs 24 key bits (R) $SECONDS"
b() { local tag=$1 bin=$2; shift 2; ok 380 || return; timeout 60 env "$@" $D/$bin/wavepath bench --backend gpu --repeat 3 --spp 64 --modes wavefront --no-raycast $SR_ARGS $SP $DR $RT $VA --json $O/rs_$tag.json > $O/rs_$tag.log 2>&1; echo "-- $tag"; python3 $D/summ.py $O/rs_$tag.json; }
SR_ARGS="" b M_unsorted M X=0
SR_ARGS="--sort-rays 1" b M_idx25 M X=0
SR_ARGS="--sort-rays 1" b R_idx25 R X=0
SR_ARGS="--sort-rays 1" b R_idx24 R WP_EXP_KEYBITS=24
SR_ARGS="--sort-rays 1" b R_rec24 R WP_EXP_RAYREC=1 WP_EXP_KEYBITS=24
SR_ARGS="--sort-rays 1" b R_idx24_pk R WP_EXP_PUSHKEYS=1 WP_EXP_KEYBITS=24
SR_ARGS="--sort-rays 1" b R_rec24_pk R WP_EXP_RAYREC=1 WP_EXP_PUSHKEYS=1 WP_EXP_KEYBITS=24
SR_ARGS="" b R_unsorted R X=0
echo "== images R (records, 24 bits, sorted) vs M unsorted, 16 spp wavefront $SECONDS"
for sc in $SP $RT; do n=$(basename ${sc%.*}); ok 400 || break
  $D/M/wavepath render $sc --backend gpu --mode wavefront --spp 16 -o $O/im_M_$n.exr > /dev/null 2>&1 || echo "render fail M $n"
  WP_EXP_RAYREC=1 WP_EXP_PUSHKEYS=1 WP_EXP_KEYBITS=24 $D/R/wavepath render $sc --backend gpu --mode wavefront --spp 16 --sort-rays 1 -o $O/im_R_$n.exr > /dev/null 2>&1 || echo "render fail R $n"
  echo "$n: $($D/A/wp_parity_compare $n $O/im_R_$n.exr $O/im_M_$n.exr --mean-tol 0 --relmse-tol 0 --block 1 2>&1 | tail -1)"
done
echo "== pbrt-book M vs A $SECONDS"
for v in M A; do ok 420 || break; timeout 45 $D/$v/wavepath bench --backend gpu --repeat 3 --spp 64 --no-raycast $P/pbrt-book/book.pbrt --json $O/book_$v.json > $O/book_$v.log 2>&1; echo "-- book $v"; python3 $D/summ.py $O/book_$v.json; done
echo "== ncu extend sponza $SECONDS"
for v in M E; do ok 370 || break; WP=$D/$v/wavepath timeout 40 bash profiling/ncu_stage.sh $SP extend 2 $O/ncu_$v -- --spp 4 2>&1 | tail -14 | sed "s/^/$v /"; done
echo "== end $SECONDS"
