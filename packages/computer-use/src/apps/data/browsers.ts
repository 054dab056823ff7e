/**
 * Browsers → read tier. Web work belongs to a browser-automation tool, not blind clicking, and
 * a browser is a doorway to every account the desktop is signed in to.
 */
import type { CategoryEntries } from '../types.ts';

export const BROWSERS: CategoryEntries = {
  ids: [
    // macOS bundle ids
    'com.apple.Safari', 'com.apple.SafariTechnologyPreview',
    'com.google.Chrome', 'com.google.Chrome.beta', 'com.google.Chrome.dev', 'com.google.Chrome.canary',
    'org.chromium.Chromium',
    'org.mozilla.firefox', 'org.mozilla.firefoxdeveloperedition', 'org.mozilla.nightly',
    'com.microsoft.edgemac', 'com.microsoft.edgemac.Beta', 'com.microsoft.edgemac.Dev', 'com.microsoft.edgemac.Canary',
    'com.brave.Browser', 'com.brave.Browser.beta', 'com.brave.Browser.nightly',
    'com.operasoftware.Opera', 'com.operasoftware.OperaGX', 'com.vivaldi.Vivaldi',
    'company.thebrowser.Browser', 'company.thebrowser.dia',
    'org.torproject.torbrowser', 'com.duckduckgo.macos.browser', 'ai.perplexity.comet',
    'com.sigmaos.sigmaos.macos', 'com.kagi.kagimacOS', 'ru.yandex.desktop.yandex-browser',
    'org.qutebrowser.qutebrowser', 'app.zen-browser.zen', 'io.gitlab.librewolf-community',
    // Linux WM_CLASS instances/classes and executable basenames
    'firefox', 'firefox-esr', 'firefox-bin', 'Navigator',
    'chromium', 'chromium-browser',
    'google-chrome', 'google-chrome-stable', 'google-chrome-beta', 'google-chrome-unstable', 'chrome',
    'microsoft-edge', 'microsoft-edge-stable', 'microsoft-edge-beta', 'msedge',
    'brave', 'brave-browser', 'brave-browser-stable',
    'opera', 'vivaldi', 'vivaldi-stable',
    'torbrowser', 'torbrowser-launcher', 'Tor Browser', 'mullvad-browser', 'Mullvad Browser',
    'librewolf', 'waterfox', 'floorp', 'zen-browser', 'thorium-browser',
    'epiphany', 'falkon', 'konqueror', 'qutebrowser', 'midori', 'palemoon',
    'seamonkey', 'icecat', 'iceweasel', 'netsurf', 'netsurf-gtk', 'dillo', 'surf', 'ladybird', 'nyxt',
    'iexplore',
    // Linux .desktop / flatpak app ids
    'firefox.desktop', 'firefox-esr.desktop', 'chromium.desktop', 'chromium-browser.desktop',
    'google-chrome.desktop', 'microsoft-edge.desktop', 'brave-browser.desktop', 'opera.desktop',
    'vivaldi-stable.desktop', 'torbrowser.desktop', 'librewolf.desktop', 'org.gnome.Epiphany',
    'org.gnome.Epiphany.desktop', 'org.kde.falkon', 'org.kde.falkon.desktop', 'org.kde.konqueror',
    'org.kde.konqueror.desktop', 'org.qutebrowser.qutebrowser.desktop', 'com.google.Chrome.desktop',
    'com.brave.Browser.desktop', 'com.microsoft.Edge', 'com.opera.Opera', 'com.vivaldi.Vivaldi.desktop',
    'io.gitlab.librewolf-community.desktop', 'one.ablaze.floorp', 'app.zen_browser.zen',
    'com.github.micahflee.torbrowser-launcher', 'org.torproject.torbrowser-launcher',
  ],
  names: [
    'safari', 'chrome', 'chromium', 'firefox', 'microsoft edge', 'microsoft-edge', 'msedge',
    'brave browser', 'brave-browser', 'opera browser', 'opera gx', 'vivaldi', 'arc browser',
    'dia browser', 'tor browser', 'torbrowser', 'mullvad browser', 'duckduckgo', 'yandex browser',
    'orion browser', 'sigmaos', 'librewolf', 'waterfox', 'floorp', 'zen browser', 'thorium browser',
    'epiphany', 'falkon', 'konqueror', 'qutebrowser', 'midori', 'pale moon', 'palemoon',
    'seamonkey', 'icecat', 'iceweasel', 'netsurf', 'ladybird', 'internet explorer', 'web browser',
  ],
};
