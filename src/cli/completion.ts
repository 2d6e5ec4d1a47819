/**
 * `propgraph completion bash|zsh`: a shell completion script generated from the command
 * tree itself (commander's), so it never falls behind a new command or option. Bash
 * completes commands, subcommands and options, and file names after `-f`/`--file`; zsh
 * runs the same function through its bash compatibility layer.
 */
import type { Command, Option } from 'commander';
import { CliError, EXIT } from './errors.js';

interface Level {
  /** The command path, words separated by single spaces ('' for the top). */
  readonly path: string;
  readonly subcommands: string[];
  readonly options: string[];
}

function flagsOf(option: Option): string[] {
  return [option.short, option.long].filter((f): f is string => typeof f === 'string');
}

function levels(command: Command, path = ''): Level[] {
  const subcommands = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const options = [...command.options.flatMap(flagsOf), '--help', ...(path === '' ? ['--version'] : [])];
  const here: Level = { path, subcommands: subcommands.map((c) => c.name()), options: [...new Set(options)] };
  return [here, ...subcommands.flatMap((c) => levels(c, path ? `${path} ${c.name()}` : c.name()))];
}

const quote = (words: readonly string[]) => words.join(' ').replace(/[^A-Za-z0-9 ._:-]/g, '');

export function bashCompletion(program: Command): string {
  const all = levels(program);
  const sub = all.map((l) => `    "${l.path}") echo "${quote(l.subcommands)}" ;;`).join('\n');
  const words = all.map((l) => `    "${l.path}") echo "${quote([...l.subcommands, ...l.options])}" ;;`).join('\n');
  return `# propgraph shell completion (bash). Load it with:
#   source <(propgraph completion bash)
# or write it to a file that your shell reads, e.g. ~/.local/share/bash-completion/completions/propgraph
_propgraph_subcommands() {
  case "$1" in
${sub}
    *) echo "" ;;
  esac
}
_propgraph_words() {
  case "$1" in
${words}
    *) echo "" ;;
  esac
}
_propgraph() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    for sub in $(_propgraph_subcommands "$path"); do
      if [[ "$word" == "$sub" ]]; then path="\${path:+$path }$word"; break; fi
    done
  done
  if [[ "$prev" == "-f" || "$prev" == "--file" ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
    return 0
  fi
  COMPREPLY=( $(compgen -W "$(_propgraph_words "$path")" -- "$cur") )
}
complete -F _propgraph propgraph
`;
}

export function zshCompletion(program: Command): string {
  return `#compdef propgraph
# propgraph shell completion (zsh). Load it with:
#   source <(propgraph completion zsh)
# (it uses zsh's bash completion layer, bashcompinit).
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program)}`;
}

export function completionScript(program: Command, shell: string): string {
  if (shell === 'bash') return bashCompletion(program);
  if (shell === 'zsh') return zshCompletion(program);
  throw new CliError(`completion: unknown shell '${shell}'; use bash or zsh`, EXIT.usage);
}
