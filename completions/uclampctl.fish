# fish completion for uclampctl(8): commands, the options of each command,
# option values, PIDs and cgroup paths, like the bash one (completions/uclampctl).
# Column names for -o come from 'uclampctl ... --list-columns' itself.

# the words before the cursor that are not options or option values:
# the command and its subcommand
function __uclampctl_words
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip 0
    for w in $words
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case --min --max --rt-default --policy --user --group --comm --exe --argv0 \
                    --cmdline --parent --cgroup --unit -o --output \
                    --format -p --pid -c --config --wait
                set skip 1
            case '-*'
            case '*'
                echo $w
        end
    end
end

# __uclampctl_at WORD...: exactly these words so far (the next one is expected)
function __uclampctl_at
    set -l w (__uclampctl_words)
    test "$w" = "$argv"
end

# __uclampctl_in WORD...: the command line starts with these words
function __uclampctl_in
    set -l w (__uclampctl_words)
    set -l n (count $argv)
    test (count $w) -ge $n; or return 1
    test "$w[1..$n]" = "$argv"
end

function __uclampctl_pids
    string replace -- /proc/ '' /proc/* | string match -r '^[0-9]+$'
end

# -o LIST: the columns 'CMD... --list-columns' prints, after the items already given
function __uclampctl_columns
    set -l tok (string replace -r -- '^(--output=|-o)' '' (commandline -ct))
    set -l pre (string replace -r -- '^(\+?(?:.*,)?).*$' '$1' $tok)
    set -l seen (string split , -- (string trim -c + -- $pre))
    set -l seen (string upper -- $seen)
    set -l prog (commandline -opc)[1]
    # typed in lower case: offered so (uclampctl takes either)
    set -l lower (string match -qr '[a-z]' -- (string replace -r '^.*,' '' -- $tok); and echo 1)
    for c in (command $prog $argv --list-columns 2>/dev/null | string trim | string replace -r ' .*' '')
        contains -- $c $seen; and continue
        if test -n "$lower"
            echo $pre(string lower -- $c)
        else
            echo $pre$c
        end
    end
end

# run's CMD and its arguments: complete them as CMD's own command line
function __uclampctl_run_cmd
    set -l toks (commandline -opc)
    set -l i (contains -i -- run $toks)
    set -e toks[1..$i]
    while set -q toks[1]
        switch $toks[1]
            case --min --max
                set -e toks[1..2]
            case --
                set -e toks[1]
                break
            case '-*'
                set -e toks[1]
            case '*'
                break
        end
    end
    complete -C (string join ' ' -- (string escape -- $toks) (commandline -ct))
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

set -l values 0 256 512 768 1024 25% 50% 75% 100% max default
set -l policies other batch idle fifo rr deadline ext

complete -c uclampctl -f

# global options, before or after the command (not among run's CMD ARGS); the commands
set -l global 'not __uclampctl_in run; or __uclampctl_at run'
complete -c uclampctl -n $global -s q -l quiet -d 'print only errors'
complete -c uclampctl -n $global -s v -l verbose -d 'say more'
complete -c uclampctl -n $global -s V -l version -d 'display version'
complete -c uclampctl -n $global -l wait -x -a '0 10 30 60 300' -d 'seconds a write waits for the uclampctl lock'
complete -c uclampctl -s h -l help -d 'display help'
complete -c uclampctl -n '__uclampctl_at' -a status -d 'show uclamp support and the fast path state'
complete -c uclampctl -n '__uclampctl_at' -a check -d 'exit 0 if the fast path is off, 1 on, 3 unknown'
complete -c uclampctl -n '__uclampctl_at' -a keys -d 'show the scheduler static keys'
complete -c uclampctl -n '__uclampctl_at' -a task -d 'show, set or reset per-task clamps'
complete -c uclampctl -n '__uclampctl_at' -a top -d 'watch util, clamps and CPU frequency live'
complete -c uclampctl -n '__uclampctl_at' -a run -d 'run a command with clamps'
complete -c uclampctl -n '__uclampctl_at' -a system -d 'show or set the system-wide clamps'
complete -c uclampctl -n '__uclampctl_at' -a cgroup -d 'show or set cgroup clamps'
complete -c uclampctl -n '__uclampctl_at' -a apply -d 'apply or check a declarative configuration'
complete -c uclampctl -n '__uclampctl_at' -a watch -d 'keep the [tasks] rules true for new processes'

# subcommands
complete -c uclampctl -n '__uclampctl_at task' -a 'show set reset'
complete -c uclampctl -n '__uclampctl_at system; or __uclampctl_at cgroup' -a 'show set'

# status, check
complete -c uclampctl -n '__uclampctl_in status' -s J -l json -d 'JSON output'
complete -c uclampctl -n '__uclampctl_in status' -l format -x -a 'text json prometheus' -d 'output format'
complete -c uclampctl -n '__uclampctl_in check' -s J -l json -d 'JSON output'
complete -c uclampctl -n '__uclampctl_in check' -l format -x -a 'text json' -d 'output format'
complete -c uclampctl -n '__uclampctl_in check' -l strict -d 'exit 5 on a finding of level warning'

# tables: keys, task show, system show, cgroup show
set -l table '__uclampctl_in keys; or __uclampctl_in task show; or __uclampctl_in system show; or __uclampctl_in cgroup show'
complete -c uclampctl -n $table -s J -l json -d 'JSON output'
complete -c uclampctl -n $table -s r -l raw -d 'raw output'
complete -c uclampctl -n $table -s n -l noheadings -d 'no header line'
complete -c uclampctl -n $table -l list-columns -d 'list the columns for --output'
complete -c uclampctl -n '__uclampctl_in keys' -s o -l output -x -a '(__uclampctl_columns keys)' -d 'columns'
complete -c uclampctl -n '__uclampctl_in task show' -s o -l output -x -a '(__uclampctl_columns task show)' -d 'columns'
complete -c uclampctl -n '__uclampctl_in system show' -s o -l output -x -a '(__uclampctl_columns system show)' -d 'columns'
complete -c uclampctl -n '__uclampctl_in cgroup show' -s o -l output -x -a '(__uclampctl_columns cgroup show)' -d 'columns'

# writes: consent and dry runs
set -l write '__uclampctl_in task set; or __uclampctl_in task reset; or __uclampctl_in run; or __uclampctl_in system set; or __uclampctl_in cgroup set; or __uclampctl_in apply'
complete -c uclampctl -n $write -s y -l yes -d 'consent to enabling the uclamp fast path'
complete -c uclampctl -n $write -s n -l dry-run -d 'print the plan and change nothing'
set -l clamps '__uclampctl_in task set; or __uclampctl_in run; or __uclampctl_in system set; or __uclampctl_in cgroup set'
complete -c uclampctl -n $clamps -l min -x -a "$values" -d 'minimum clamp'
complete -c uclampctl -n $clamps -l max -x -a "$values" -d 'maximum clamp'

# task
set -l tasks '__uclampctl_in task show; or __uclampctl_in task set; or __uclampctl_in task reset; or __uclampctl_in top'
complete -c uclampctl -n $tasks -a '(__uclampctl_pids)'
complete -c uclampctl -n $tasks -s a -l threads -d 'every thread of each process'
complete -c uclampctl -n $tasks -l all -d 'every process'
complete -c uclampctl -n $tasks -l kernel-threads -d 'with --all: kernel threads too'
complete -c uclampctl -n $tasks -l policy -x -a "$policies" -d 'only tasks with this policy'
complete -c uclampctl -n $tasks -l user -x -a '(__fish_complete_users)' -d 'only processes of this user'
complete -c uclampctl -n $tasks -l group -x -a '(__fish_complete_groups)' -d 'only processes of this group'
complete -c uclampctl -n $tasks -l comm -x -a '(cat /proc/*/comm 2>/dev/null | sort -u)' -d 'only processes with this name'
complete -c uclampctl -n $tasks -l exe -r -F -d 'only processes running this program'
complete -c uclampctl -n $tasks -l argv0 -x -d 'only processes with this argv[0] basename'
complete -c uclampctl -n $tasks -l cmdline -x -d 'only processes with this command line (a glob)'
complete -c uclampctl -n $tasks -l parent -x -a '(cat /proc/*/comm 2>/dev/null | sort -u)' -d 'only processes whose parent has this name'
complete -c uclampctl -n $tasks -l cgroup -x -a '(__uclampctl_cgpaths)' -d 'only processes in this cgroup or below'
complete -c uclampctl -n $tasks -l unit -x -d 'only processes in this systemd unit or slice'
complete -c uclampctl -n '__uclampctl_in task set' -l reset-on-fork -d 'children start at the default clamps'
complete -c uclampctl -n '__uclampctl_in task set' -l no-reset-on-fork -d 'children inherit the clamps'

# run: options, then a command and its own completion
complete -c uclampctl -n '__uclampctl_at run' -l reset-on-fork -d "CMD's children start at the default clamps"
complete -c uclampctl -n '__uclampctl_at run' -l no-reset-on-fork -d "CMD's children inherit its clamps"
complete -c uclampctl -n '__uclampctl_at run' -a '(__fish_complete_command)'
complete -c uclampctl -n '__uclampctl_in run; and not __uclampctl_at run' -a '(__uclampctl_run_cmd)'

# top (its selectors: with task's above)
complete -c uclampctl -n '__uclampctl_in top' -s d -l delay -x -a '0.5 1 2 5' -d 'seconds between samples'
complete -c uclampctl -n '__uclampctl_in top' -s n -l iterations -x -d 'stop after this many samples'
complete -c uclampctl -n '__uclampctl_in top' -l once -d 'one sample'
complete -c uclampctl -n '__uclampctl_in top' -s t -l tasks -x -d 'show this many tasks'
complete -c uclampctl -n '__uclampctl_in top' -s J -l json -d 'one JSON object per sample'
complete -c uclampctl -n '__uclampctl_in top' -l format -x -a 'text json' -d 'output format'

# system
complete -c uclampctl -n '__uclampctl_in system set' -l rt-default -x -a "$values" -d 'util_min_rt_default'

# cgroup
complete -c uclampctl -n '__uclampctl_in cgroup show; or __uclampctl_at cgroup set' -a '(__uclampctl_cgpaths)'
complete -c uclampctl -n '__uclampctl_in cgroup show; or __uclampctl_at cgroup set' -a '(__uclampctl_units)' -d unit
complete -c uclampctl -n '__uclampctl_in cgroup show' -s R -l recursive -d 'show the groups below too'
complete -c uclampctl -n '__uclampctl_in cgroup show' -s p -l pid -x -a '(__uclampctl_pids)' -d 'the cgroup of this process'
complete -c uclampctl -n '__uclampctl_in cgroup set' -l enable-cpu -d 'enable the cpu controller above the group'

# apply
complete -c uclampctl -n '__uclampctl_in apply' -s c -l config -r -F -d 'read this file or directory'
complete -c uclampctl -n '__uclampctl_in apply' -l check -d 'compare only'
complete -c uclampctl -n '__uclampctl_in apply' -s J -l json -d 'print the result as JSON'

# watch
complete -c uclampctl -n '__uclampctl_in watch; and not __uclampctl_in watch status' -a status -d 'ask the running daemon'
complete -c uclampctl -n '__uclampctl_in watch; and not __uclampctl_in watch status' -s c -l config -r -F -d 'read this file or directory'
complete -c uclampctl -n '__uclampctl_in watch; and not __uclampctl_in watch status' -s n -l dry-run -d 'log what would be set, write nothing'
complete -c uclampctl -n '__uclampctl_in watch; and not __uclampctl_in watch status' -s y -l yes -d 'consent to enabling the fast path'
complete -c uclampctl -n '__uclampctl_in watch; and not __uclampctl_in watch status' -l foreground -d 'stay in the foreground'
complete -c uclampctl -n '__uclampctl_in watch; and not __uclampctl_in watch status' -l oneshot -d 'apply once and exit'
complete -c uclampctl -n '__uclampctl_in watch' -l socket -r -F -d 'the status socket'
complete -c uclampctl -n '__uclampctl_in watch status' -s J -l json -d 'JSON output'
complete -c uclampctl -n '__uclampctl_in watch status' -l format -x -a 'text json prometheus' -d 'output format'
