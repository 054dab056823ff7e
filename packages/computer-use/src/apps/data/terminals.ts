/**
 * Terminals, IDEs with a built-in terminal, script runners and command launchers → click tier. Typing into one of
 * these is running a command; shell work belongs to a shell tool, so clicks and scrolls only.
 */
import type { CategoryEntries } from '../types.ts';

export const TERMINALS: CategoryEntries = {
  ids: [
    // macOS bundle ids: terminals
    'com.apple.Terminal', 'com.googlecode.iterm2', 'dev.warp.Warp-Stable', 'dev.warp.Warp-Beta',
    'com.github.wez.wezterm', 'org.alacritty', 'io.alacritty', 'net.kovidgoyal.kitty', 'co.zeit.hyper',
    'com.mitchellh.ghostty', 'com.termius-dmg.mac', 'org.tabby',
    // macOS bundle ids: IDEs and editors with a terminal
    'com.microsoft.VSCode', 'com.microsoft.VSCodeInsiders', 'com.vscodium', 'com.todesktop.230313mzl4w4u92',
    'com.exafunction.windsurf', 'dev.zed.Zed', 'dev.zed.Zed-Preview', 'com.jetbrains.intellij',
    'com.jetbrains.intellij.ce', 'com.jetbrains.pycharm', 'com.jetbrains.pycharm.ce', 'com.jetbrains.WebStorm',
    'com.jetbrains.CLion', 'com.jetbrains.goland', 'com.jetbrains.rubymine', 'com.jetbrains.PhpStorm',
    'com.jetbrains.datagrip', 'com.jetbrains.rider', 'com.jetbrains.AppCode', 'com.jetbrains.rustrover',
    'com.jetbrains.fleet', 'com.google.android.studio', 'com.sublimetext.4', 'com.sublimetext.3',
    'org.vim.MacVim', 'com.qvacua.VimR', 'com.neovide.neovide', 'org.gnu.Emacs', 'com.apple.dt.Xcode',
    'org.eclipse.platform.ide', 'org.netbeans.ide', 'com.microsoft.visual-studio', 'com.panic.Nova',
    'com.barebones.bbedit', 'com.macromates.TextMate', 'com.axosoft.gitkraken' /* its name contains "kraken" */,
    // macOS bundle ids: script runners
    'com.apple.ScriptEditor2', 'com.apple.Automator', 'com.apple.shortcuts',
    'com.stairways.keyboardmaestro.editor', 'org.python.IDLE',
    // Linux WM_CLASS instances/classes and executable basenames: terminals
    'xterm', 'uxterm', 'gnome-terminal', 'gnome-terminal-server',
    'kgx', 'ptyxis', 'konsole', 'yakuake', 'xfce4-terminal', 'lxterminal',
    'mate-terminal', 'qterminal', 'terminator', 'tilix', 'guake', 'tilda', 'alacritty',
    'kitty', 'wezterm', 'wezterm-gui', 'org.wezfurlong.wezterm', 'foot', 'footclient', 'urxvt',
    'rxvt', 'rxvt-unicode', 'st', 'st-256color', 'sakura', 'terminology', 'cool-retro-term',
    'deepin-terminal', 'ghostty', 'warp-terminal', 'hyper', 'tabby', 'blackbox', 'contour', 'rio',
    // Windows executables (Wine or a future Windows desktop)
    'cmd', 'powershell', 'pwsh', 'windowsterminal', 'wt', 'conhost', 'mintty', 'devenv',
    // Linux: IDEs and editors with a terminal
    'code', 'code-oss', 'code-insiders', 'codium', 'VSCodium', 'cursor', 'windsurf',
    'zed', 'zeditor', 'sublime_text', 'subl', 'emacs', 'emacsclient', 'gvim',
    'nvim-qt', 'neovide', 'jetbrains-idea', 'jetbrains-idea-ce', 'jetbrains-pycharm',
    'jetbrains-pycharm-ce', 'jetbrains-webstorm', 'jetbrains-phpstorm', 'jetbrains-goland',
    'jetbrains-clion', 'jetbrains-rider', 'jetbrains-rubymine', 'jetbrains-datagrip',
    'jetbrains-rustrover', 'jetbrains-studio', 'idea', 'pycharm', 'webstorm', 'phpstorm', 'goland',
    'clion', 'rider', 'rubymine', 'datagrip', 'rustrover', 'android-studio', 'eclipse', 'netbeans',
    'geany', 'kate', 'qtcreator', 'kdevelop', 'gnome-builder', 'lapce', 'rstudio', 'spyder', 'thonny',
    'idle', 'idle3', 'gitkraken',
    // Linux: launchers that run what is typed into them
    'rofi', 'dmenu', 'xfce4-appfinder', 'gmrun', 'krunner', 'org.kde.krunner', 'ulauncher', 'albert', 'wofi',
    'fuzzel', 'bemenu', 'lxqt-runner',
    // Linux .desktop / flatpak app ids
    'debian-xterm.desktop', 'debian-uxterm.desktop', 'org.gnome.Terminal', 'org.gnome.Terminal.desktop',
    'org.gnome.Console', 'org.gnome.Console.desktop', 'org.gnome.Ptyxis', 'org.kde.konsole',
    'org.kde.konsole.desktop', 'org.kde.yakuake', 'xfce4-terminal.desktop', 'lxterminal.desktop',
    'mate-terminal.desktop', 'terminator.desktop', 'com.gexperts.Tilix', 'Alacritty.desktop',
    'kitty.desktop', 'org.wezfurlong.wezterm.desktop', 'org.codeberg.dnkl.foot', 'com.raggesilver.BlackBox',
    'code.desktop', 'code-oss.desktop', 'codium.desktop', 'cursor.desktop', 'com.visualstudio.code',
    'com.vscodium.codium', 'com.sublimetext.three', 'sublime_text.desktop', 'emacs.desktop',
    'gvim.desktop', 'org.kde.kate', 'org.qt-project.qtcreator', 'org.gnome.Builder',
    'org.geany.Geany', 'com.jetbrains.IntelliJ-IDEA-Community', 'com.jetbrains.PyCharm-Community',
  ],
  names: [
    'terminal', 'iterm', 'xterm', 'rxvt', 'konsole', 'yakuake', 'guake', 'tilix', 'terminator',
    'terminology', 'alacritty', 'kitty', 'wezterm', 'ghostty', 'tabby', 'termius', 'ptyxis',
    'gnome console', 'cool-retro-term', 'cool retro term', 'powershell', 'command prompt', 'cmd.exe',
    'git bash', 'script editor', 'automator', 'keyboard maestro', 'python launcher',
    'visual studio', 'vscode', 'vs code', 'vscodium', 'code - oss', 'code-oss', 'cursor', 'windsurf',
    'jetbrains', 'intellij', 'pycharm', 'webstorm', 'phpstorm', 'clion', 'goland', 'rubymine',
    'datagrip', 'dataspell', 'rustrover', 'appcode', 'android studio', 'xcode', 'sublime text',
    'sublime_text', 'macvim', 'gvim', 'neovim', 'neovide', 'nvim-qt', 'emacs', 'eclipse', 'netbeans',
    'qt creator', 'qtcreator', 'kdevelop', 'gnome builder', 'code::blocks', 'codeblocks', 'geany',
    'lapce', 'rstudio', 'spyder', 'thonny', 'textmate', 'bbedit',
  ],
};
