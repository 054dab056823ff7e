/**
 * File managers → the browser category (read tier). A click in one runs whatever it points at:
 * a double-click on a script or a desktop entry starts it, "Open With" and "Open in Terminal"
 * start anything. With any full-tier app that can save a file (a text editor), a click-tier file
 * manager was a shell — the way a seed-profile agent with a click-only terminal ran commands.
 * Konqueror, a web and file browser, is listed with the browsers.
 */
import type { CategoryEntries } from '../types.ts';

export const FILE_BROWSERS: CategoryEntries = {
  ids: [
    // macOS: Finder opens a double-clicked .command or .app as readily
    'com.apple.finder', 'com.binarynights.ForkLift', 'com.cocoatech.PathFinder', 'com.marta.Marta',
    'com.nektony.commander-one',
    // Linux WM_CLASS instances/classes, executable basenames and .desktop ids
    'pcmanfm', 'pcmanfm-qt', 'lxqt-pcmanfm', 'nautilus', 'org.gnome.Nautilus', 'thunar', 'dolphin',
    'org.kde.dolphin', 'nemo', 'nemo-desktop', 'caja', 'caja-desktop', 'spacefm', 'spacefm-desktop',
    'doublecmd', 'krusader', 'org.kde.krusader', 'xfe', 'rox', 'rox-filer', 'polo', 'index-fm',
    'org.kde.index', 'peony', 'deepin-file-manager', 'dde-file-manager', 'io.elementary.files',
    'org.gnome.Files', 'pantheon-files', 'sunflower', 'tuxcmd', 'emelfm2', 'gnome-commander',
    'org.gnome.gnome-commander', 'qtfm', 'dfilemanager',
  ],
  names: [
    'file manager', 'pcmanfm', 'nautilus', 'thunar', 'krusader', 'double commander', 'doublecmd',
    'spacefm', 'path finder', 'forklift', 'commander one', 'gnome commander',
  ],
};
