# The stage names of the per-kernel table and the kernels behind each (sourced by ncu_stage.sh and by the CI test
# tests/check_stage_names.sh). A stage's kernel carries its name (kernels/<stage>.cu); the two CUB stages run CUB's.
# stage_kernel_regex STAGE: the kernel names (ncu's --kernel-name-base function: no namespace, no template
# arguments) as an extended regex.
stage_kernel_regex() {
  case "$1" in
    compact_select) echo "DeviceSelectSweepKernel|DeviceCompactInitKernel" ;;
    sort_materials) echo "DeviceRadixSort[A-Za-z]*Kernel" ;;
    sort_rays) echo "sort_rays|DeviceRadixSort[A-Za-z]*Kernel" ;;
    sort_shadow) echo "sort_shadow|DeviceRadixSort[A-Za-z]*Kernel" ;;
    shade_*) echo "shade" ;;  # the material families' kernels are instances of shade (kernels/shade.cu)
    *) echo "$1" ;;
  esac
}
# stage_render_args STAGE: what `wavepath render` needs for the stage to run (its schedule and options).
stage_render_args() {
  case "$1" in
    megakernel) echo "--mode megakernel" ;;
    aov) echo "--mode megakernel --aov albedo,normal,depth" ;;
    sort_materials) echo "--mode wavefront --sort-materials" ;;
    sort_rays | sort_shadow) echo "--mode wavefront --sort-rays 1" ;;
    compact_select | compact) echo "--mode wavefront --select-compaction" ;;
    *) echo "--mode wavefront" ;;
  esac
}
