#!/usr/bin/env bash
# Session-only device call 2 (2026-12-06): the film's L2 residency in the wavefront. Variants (all the same image):
# main; nofilm (atomics removed: the ceiling); p = main + WP_EXP_FILM_PERSIST=1 (persisting L2 window over the film);
# cs (queue records ld/st.global.cs, evict-first); el (film atomics red.global with an L2 evict_last policy); cs+persist.
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER LD_LIBRARY_PATH="$PWD/.devcarry/lib"
D=.devcarry; O=$OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
bin() { case $1 in main) echo $D/wavepath;; p|csp) echo $D/${1/csp/cs}/wavepath;; *) echo $D/$1/wavepath;; esac; }
envv() { case $1 in p|csp) echo WP_EXP_FILM_PERSIST=1;; *) echo WP_NOTHING=0;; esac; }
echo "== same images (rtiow 4 spp, cornell 16 spp, both modes)"
for v in main p cs el; do
  for sc in rtiow cornell-box; do
    env $(envv $v) timeout 60 $(bin $v) render scenes/$sc.json --backend gpu --mode both --spp 4 -o /tmp/img-$v-$sc.exr > /tmp/img-$v-$sc.log 2>&1 || echo "render $v $sc failed"
  done
done
for v in p cs el; do for sc in rtiow cornell-box; do
  for f in /tmp/img-main-$sc*.exr; do g=${f/img-main/img-$v}; cmp -s $f $g && echo "same $v $(basename $g)" || echo "DIFFER $v $(basename $g)"; done
done; done
ls /tmp/img-main-rtiow* 
show() { grep -E "^scenes|^  (wavefront|megakernel) |^    (extend|shade|shadow|drain|generate|megakernel) " "$1"; }
for r in 1 2; do
  for v in main nofilm p cs el csp; do
    env $(envv $v) timeout 100 $(bin $v) bench --backend gpu --repeat 5 --no-raycast > $O/b-$v-r$r.txt 2>&1; echo "== $v r$r rc=$?"; show $O/b-$v-r$r.txt
  done
done
grep -h "^exp:" $O/b-p-r1.txt | sort -u
cd $O && tar czf logs2.tgz *.txt && rm -f b-*.txt
