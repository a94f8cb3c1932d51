# complete.zsh FPATHDIR WORDS...: print, one per line, the candidates zsh's
# completion system offers for the command line WORDS (the last word is the
# one being completed). Runs an interactive zsh in a pseudo-terminal (zpty),
# types the line and a TAB, and records what reaches compadd.
zmodload zsh/zpty || exit 77
fdir=$1
shift
if [[ -z ${@[-1]} ]]; then
	line="${(j: :)${(q-)@[1,-2]}} "
else
	line="${(j: :)${(q-)@}}"
fi
# $ZCOMPDUMP: a dump file, so that the calls after the first skip the fpath scan
dumpopt=-D
[[ -n ${ZCOMPDUMP-} ]] && dumpopt="-d ${(q)ZCOMPDUMP}"
init=$(mktemp "${TMPDIR:-/tmp}/complete-zsh.XXXXXX")
trap 'rm -f $init; zpty -d z 2>/dev/null' EXIT
cat >$init <<INIT
PS1= PS2= RPS1= ; unsetopt zle_bracketed_paste 2>/dev/null
fpath=(${(q)fdir} \$fpath)
autoload -Uz compinit && compinit -u $dumpopt
zstyle ':completion:*' list-grouped false
# every match that reaches compadd, with the prefixes compset moved aside
compadd() {
	if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "\$@"
		return
	fi
	local -a __hits __p
	zparseopts -E -a __skip p:=__p P:=__p
	builtin compadd -A __hits "\$@"
	(( \$#__hits )) || return 1
	local h
	for h in \$__hits; do print -r -- "<<\${IPREFIX}\${__p[2]}\$h>>"; done
	builtin compadd "\$@"
}
end-of-completion() { print -r -- "<<END>>"; }
comppostfuncs=(end-of-completion exit)
bindkey '^I' complete-word
INIT
zpty z "zsh -f -i"
zpty -w z "source ${(q)init}"
zpty -w z "$line"$'\t'
local out= chunk
integer n=0
while (( n++ < 400 )); do
	zpty -rt z chunk 2>/dev/null || { sleep 0.01; continue; }
	out+=$chunk
	[[ $out == *'<<END>>'* ]] && break
done
[[ -n ${ZDEBUG-} ]] && print -r -- "$out" >&2
print -r -- "${out//$'\r'/}" | grep -ao '<<[^>]*>>' | sed 's/^<<//; s/>>$//' | grep -vx END | sort -u
