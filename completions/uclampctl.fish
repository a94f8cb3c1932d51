# fish completion for uclampctl(8). What to offer is asked of uclampctl itself,
# as in the bash one (completions/uclampctl): the commands and the options of
# each from its --help (" -x, --long <kind>  help"), the words of an option
# that takes one of a few from its refusal of '?' ("...: use a, b or c"), the
# columns from --list-columns. Only what the shell knows is here, by kind.

# "OPTION KIND" for each option of 'uclampctl WORDS... --help'
function __uclampctl_opts
    command uclampctl $argv --help 2>/dev/null | sed -nE \
        -e 's/^ +(-[a-zA-Z]), (--[a-z0-9-]+)( <([^>]*)>)?.*/\1 \4\n\2 \4/p' \
        -e 's/^ +(--[a-z0-9-]+)( <([^>]*)>)?.*/\1 \3/p'
end

# the commands of 'uclampctl WORDS... --help': its Commands list, or the word
# after "uclampctl WORDS" in its Usage lines ("uclampctl watch status ...")
function __uclampctl_cmds
    command uclampctl $argv --help 2>/dev/null | sed -nE -e '/^Commands:/,/^$/s/^ ([a-z]+) .*/\1/p' \
        -e "s/^ uclampctl $argv ([a-z][a-z-]*)( .*)?\$/\1/p"
end

# the words an option takes (WORDS... OPTION), from uclampctl's refusal of '?'
function __uclampctl_words
    command uclampctl $argv[1..-2] "$argv[-1]=?" --help 2>&1 |
        sed -n '1s/.*: use \([a-z0-9, -]*\)$/\1/p' | string replace -ar ',| or ' ' ' | string split -n ' '
end

# -o LIST: the columns 'CMD... --list-columns' prints, after the items already given
function __uclampctl_columns
    set -l tok (string replace -r -- '^(--output=|-o)' '' (commandline -ct))
    set -l pre (string replace -r -- '^(\+?(?:.*,)?).*$' '$1' $tok)
    set -l seen (string split , -- (string trim -c + -- $pre))
    set -l seen (string upper -- $seen)
        # typed in lower case: offered so (uclampctl takes either)
    set -l lower (string match -qr '[a-z]' -- (string replace -r '^.*,' '' -- $tok); and echo 1)
    for c in (command uclampctl $argv --list-columns 2>/dev/null | string trim | string replace -r ' .*' '')
        contains -- $c $seen; and continue
        if test -n "$lower"
            echo $pre(string lower -- $c)
        else
            echo $pre$c
        end
    end
end

# the runs of this boot's record, by number (asked of uclampctl itself)
function __uclampctl_runs
        command $prog history -rn -o RUN 2>/dev/null
end

# the mount of the hierarchy with the cpu controller (v2, or v1 in a hybrid)
function __uclampctl_cgmount
    while read -l dev dir type opts rest
        switch $type
            case cgroup2
                # (the '' keeps string from reading stdin, the mount table)
                set -l ctl (cat $dir/cgroup.controllers 2>/dev/null) ''
                if string match -qr '(^| )cpu( |$)' -- $ctl
                    echo $dir
                    return
                end
            case cgroup
                if contains cpu (string split , -- $opts)
                    echo $dir
                    return
                end
        end
    end </proc/self/mounts
end

# the units and slices in the processes' cgroups (no bus call: cheap)
function __uclampctl_units
    # fish globs have no [0-9]: /proc/self and thread-self repeat a line, sort -u drops it
    sed -n 's#^0::.*/\([^/]*\.\(service\|scope\|slice\)\)\(/.*\)\{0,1\}$#\1#p' /proc/*/cgroup 2>/dev/null | sort -u
end

# cgroup paths: relative to the cpu hierarchy, or absolute
function __uclampctl_cgpaths
    set -l tok (commandline -ct)
    if string match -q -- '/*' $tok
        __fish_complete_directories $tok ''
        return
    end
    set -l mnt (__uclampctl_cgmount)
    test -n "$mnt"; or return
    set -l dirs $mnt/$tok*/
    test (count $dirs) -gt 0; and string replace -- $mnt/ '' $dirs
end

# a value of KIND (the <kind> of --help) for CMD... OPTION
function __uclampctl_value
    switch $argv[1]
        case value
            printf '%s\n' 0 256 512 768 1024 25% 50% 75% 100% max default
        case s secs
            printf '%s\n' 0 10 30 60 300
        case pid
            string replace -- /proc/ '' /proc/* | string match -r '^[0-9]+$'
        case user
            __fish_complete_users | string replace -r '\t.*' ''
        case group
            __fish_complete_groups | string replace -r '\t.*' ''
        case name
            cat /proc/*/comm 2>/dev/null | sort -u
        case unit
            __uclampctl_units
        case cgroup
            __uclampctl_cgpaths
        case list
            __uclampctl_columns $argv[2..-2]
        case path file program
            __fish_complete_path (commandline -ct | string replace -r '^--[^=]*=' '')
        case glob
        case '*'
            __uclampctl_words $argv[2..-1]
    end
end

function __uclampctl_complete
    set -l toks (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmd
    set -l value 0
    # the command and its subcommand (an option's value is skipped); run's CMD
    for i in (seq 2 (count $toks))
        set -l w $toks[$i]
        if test $value = 1
            set value 0
            continue
        end
        if test "$cmd[1]" = run; and not string match -q -- '-?*' $w
            # CMD and its arguments: completed as CMD's own command line
            test $w = --; and set i (math $i + 1)
            complete -C (string join ' ' -- (string escape -- $toks[$i..-1]) $cur)
            return
        end
        switch $w
            case '--*=*'
            case '-*'
                __uclampctl_opts $cmd | string match -qr -- "^$w \S"; and set value 1
            case '*'
                test (count $cmd) -lt 2; and contains -- $w (__uclampctl_cmds $cmd); and set -a cmd $w
        end
    end
    # the value of the option before, or of --opt=
    set -l opt
    if string match -qr -- '^--[^=]+=' $cur
        set opt (string replace -r -- '=.*' '' $cur)
    else if test $value = 1
        set opt $toks[-1]
    end
    if set -q opt[1]
        set -l kind (__uclampctl_opts $cmd | string replace -rf -- "^$opt (\S+)\$" '$1')[1]
        set -l pre (string match -r -- '^--[^=]+=' $cur; or echo '')
        for v in (__uclampctl_value "$kind" $cmd $opt)
            echo $pre$v
        end
    else if string match -q -- '-*' $cur
        __uclampctl_opts $cmd | string replace -r ' .*' ''
        # the global options work after the command too
        set -q cmd[1]; and __uclampctl_opts | string replace -r ' .*' '' | string match -rv '^(-h|--help)$'
    else if test "$cmd[1]" = run
        complete -C "$cur"
    else if test (count $cmd) -lt 2; and set -l subs (__uclampctl_cmds $cmd); and string match -q -- "$cur*" $subs
        printf '%s\n' $subs	# a command, or a group's (watch: 'status')
    else
        switch "$cmd[1]"
            case task top
                __uclampctl_value pid
            case cgroup	# a cgroup path, or a unit name (its cgroup, through systemd)
                __uclampctl_cgpaths
                string match -q -- '*/*' $cur; or __uclampctl_units
            case history undo
                command uclampctl history -rn -o RUN 2>/dev/null
        end
    end
end

complete -c uclampctl -f -a '(__uclampctl_complete)'
