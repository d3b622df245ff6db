# Suite live, run in the guest by /init: the museum's live exhibits
# (tests/live/live.c), bugs of this kernel as it is, nothing re-introduced.
# The mode comes from the command line of the boot (tests/boots):
# bjk.museum=interp (the museum kernel's interpreter boot: the JIT off, the
# referee), else bpf_jit_kasan= (off, outline; inline by default). With
# checks on, the decoder watches (tests/live/check.sh compares its program
# and instruction with the runner's). KTAP through /dev/kmsg.
. /lib/bjk.sh
live=/live/bjk-live
bjk_need live "$live"
mode=$(bjk_check_mode)
[ "$(bjk_param museum)" = interp ] && mode=interp
decode=/tools/bjk-decode
if [ "$mode" = inline ] || [ "$mode" = outline ]; then
	bjk_need live "$decode"
	bjk_decoded live "$decode" "$live" -k -m "$mode"
	exit $?
fi
"$live" -k -m "$mode"
