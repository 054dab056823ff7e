/**
 * Policy-denied: video and music streaming, podcasts and e-book apps. Never grantable: their
 * content is licensed for a person to watch, hear or read, not for a model to capture.
 */
import type { CategoryEntries } from '../types.ts';

export const DENIED: CategoryEntries = {
  ids: [
    // macOS bundle ids
    'com.apple.TV', 'com.apple.Music', 'com.apple.iBooksX', 'com.apple.podcasts', 'com.spotify.client',
    'com.amazon.music', 'com.tidal.desktop', 'com.deezer.deezer-desktop', 'com.pandora.desktop',
    'com.electron.pocket-casts', 'au.com.shiftyjelly.PocketCasts', 'tv.plex.desktop', 'tv.plex.htpc',
    'tv.plex.plexamp', 'com.amazon.aiv.AIVApp', 'com.amazon.Kindle', 'com.amazon.Lassen',
    'net.kovidgoyal.calibre', 'com.kobo.desktop.Kobo',
    // Linux WM_CLASS / executable basenames
    'spotify', 'spotify-launcher', 'spotube', 'calibre', 'calibre-gui', 'calibre-ebook-viewer',
    'calibre-ebook-edit', 'ebook-viewer', 'ebook-edit', 'foliate', 'tidal-hifi', 'deezer', 'deezer-desktop',
    'plex', 'plexmediaplayer', 'plex-desktop', 'plexamp', 'youtube-music', 'YouTube Music',
    'cider', 'kindle', 'kobo', 'thorium' /* Thorium Reader, not the browser */,
    'audible', 'amazon music', 'adobe digital editions', 'digitaleditions',
    // Linux .desktop / flatpak app ids
    'spotify.desktop', 'com.spotify.Client.desktop', 'calibre-gui.desktop',
    'calibre-ebook-viewer.desktop', 'calibre-ebook-edit.desktop', 'com.calibre_ebook.calibre',
    'com.github.johnfactotum.Foliate', 'com.mastermindzh.tidal-hifi', 'tv.plex.PlexDesktop',
    'tv.plex.PlexHTPC', 'com.plexamp.Plexamp', 'com.github.th_ch.youtube_music', 'sh.cider.Cider',
    'com.github.KRTirtho.Spotube', 'io.github.edrlab.thorium', 'dev.aunetx.deezer',
  ],
  names: [
    'netflix', 'disney+', 'hulu', 'prime video', 'apple tv', 'hbo max', 'paramount+', 'peacock',
    'tubi', 'crunchyroll', 'vudu', 'spotify', 'spotube', 'apple music', 'amazon music',
    'youtube music', 'tidal', 'deezer', 'pandora', 'qobuz', 'pocket casts', 'apple podcasts',
    'plexamp', 'plex media', 'kindle', 'apple books', 'kobo', 'calibre', 'foliate', 'thorium reader',
    'libby', 'audible', 'adobe digital editions', 'scribd', 'everand',
  ],
};
