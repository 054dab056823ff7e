/// The seed's app classification for macOS, by bundle id first and then by name: the macOS
/// part of packages/computer-use/src/apps/data (the same ids and name substrings, generated from
/// it; `AppClassificationTests` checks a sample, and the worker's gates remain the authority: this
/// copy lets the helper name an app's tier in its own logs and checks).
public enum AppCategory: String, CaseIterable { case browser, terminal, trading, denied, other }
public enum Tier: String { case read, click, full }

public enum AppClassification {
    static let browserIds: [String] = [
        "com.apple.Safari", "com.apple.SafariTechnologyPreview", "com.google.Chrome", "com.google.Chrome.beta",
        "com.google.Chrome.dev", "com.google.Chrome.canary", "org.chromium.Chromium", "org.mozilla.firefox",
        "org.mozilla.firefoxdeveloperedition", "org.mozilla.nightly", "com.microsoft.edgemac",
        "com.microsoft.edgemac.Beta", "com.microsoft.edgemac.Dev", "com.microsoft.edgemac.Canary", "com.brave.Browser",
        "com.brave.Browser.beta", "com.brave.Browser.nightly", "com.operasoftware.Opera", "com.operasoftware.OperaGX",
        "com.vivaldi.Vivaldi", "company.thebrowser.Browser", "company.thebrowser.dia", "org.torproject.torbrowser",
        "com.duckduckgo.macos.browser", "ai.perplexity.comet", "com.sigmaos.sigmaos.macos", "com.kagi.kagimacOS",
        "ru.yandex.desktop.yandex-browser", "org.qutebrowser.qutebrowser", "app.zen-browser.zen",
        "io.gitlab.librewolf-community",
        // File managers (packages/computer-use/src/apps/data/file-browsers.ts): a double-click runs a script
        "com.apple.finder", "com.binarynights.ForkLift", "com.cocoatech.PathFinder", "com.marta.Marta",
        "com.nektony.commander-one",
    ]
    static let browserNames: [String] = [
        "safari", "chrome", "chromium", "firefox", "microsoft edge", "microsoft-edge", "msedge", "brave browser",
        "brave-browser", "opera browser", "opera gx", "vivaldi", "arc browser", "dia browser", "tor browser",
        "torbrowser", "mullvad browser", "duckduckgo", "yandex browser", "orion browser", "sigmaos", "librewolf",
        "waterfox", "floorp", "zen browser", "thorium browser", "epiphany", "falkon", "konqueror", "qutebrowser",
        "midori", "pale moon", "palemoon", "seamonkey", "icecat", "iceweasel", "netsurf", "ladybird",
        "internet explorer", "web browser",
        "file manager", "pcmanfm", "nautilus", "thunar", "krusader", "double commander", "doublecmd", "spacefm",
        "path finder", "forklift", "commander one", "gnome commander",
    ]
    static let terminalIds: [String] = [
        "com.apple.Terminal", "com.googlecode.iterm2", "dev.warp.Warp-Stable", "dev.warp.Warp-Beta",
        "com.github.wez.wezterm", "org.alacritty", "io.alacritty", "net.kovidgoyal.kitty", "co.zeit.hyper",
        "com.mitchellh.ghostty", "com.termius-dmg.mac", "org.tabby", "com.microsoft.VSCode",
        "com.microsoft.VSCodeInsiders", "com.vscodium", "com.todesktop.230313mzl4w4u92", "com.exafunction.windsurf",
        "dev.zed.Zed", "dev.zed.Zed-Preview", "com.jetbrains.intellij", "com.jetbrains.intellij.ce",
        "com.jetbrains.pycharm", "com.jetbrains.pycharm.ce", "com.jetbrains.WebStorm", "com.jetbrains.CLion",
        "com.jetbrains.goland", "com.jetbrains.rubymine", "com.jetbrains.PhpStorm", "com.jetbrains.datagrip",
        "com.jetbrains.rider", "com.jetbrains.AppCode", "com.jetbrains.rustrover", "com.jetbrains.fleet",
        "com.google.android.studio", "com.sublimetext.4", "com.sublimetext.3", "org.vim.MacVim", "com.qvacua.VimR",
        "com.neovide.neovide", "org.gnu.Emacs", "com.apple.dt.Xcode", "org.eclipse.platform.ide", "org.netbeans.ide",
        "com.microsoft.visual-studio", "com.panic.Nova", "com.barebones.bbedit", "com.macromates.TextMate",
        "com.axosoft.gitkraken", "com.apple.ScriptEditor2", "com.apple.Automator", "com.apple.shortcuts",
        "com.stairways.keyboardmaestro.editor", "org.python.IDLE",
    ]
    static let terminalNames: [String] = [
        "terminal", "iterm", "xterm", "rxvt", "konsole", "yakuake", "guake", "tilix", "terminator", "terminology",
        "alacritty", "kitty", "wezterm", "ghostty", "tabby", "termius", "ptyxis", "gnome console", "cool-retro-term",
        "cool retro term", "powershell", "command prompt", "cmd.exe", "git bash", "script editor", "automator",
        "keyboard maestro", "python launcher", "visual studio", "vscode", "vs code", "vscodium", "code - oss",
        "code-oss", "cursor", "windsurf", "jetbrains", "intellij", "pycharm", "webstorm", "phpstorm", "clion",
        "goland", "rubymine", "datagrip", "dataspell", "rustrover", "appcode", "android studio", "xcode",
        "sublime text", "sublime_text", "macvim", "gvim", "neovim", "neovide", "nvim-qt", "emacs", "eclipse",
        "netbeans", "qt creator", "qtcreator", "kdevelop", "gnome builder", "code::blocks", "codeblocks", "geany",
        "lapce", "rstudio", "spyder", "thonny", "textmate", "bbedit",
    ]
    static let tradingIds: [String] = [
        "com.webull.desktop.v1", "com.webull.trade.mac.v1", "com.tastytrade.desktop",
        "com.tradingview.tradingviewapp.desktop", "com.fidelity.activetrader", "com.fmr.activetrader",
        "com.install4j.5889-6375-8446-2021", "com.binance.BinanceDesktop", "com.electron.exodus",
        "org.pythonmac.unspecified.Electrum", "com.ledger.live", "io.trezor.TrezorSuite", "org.bitcoin.Bitcoin-Qt",
        "com.sparrowwallet.sparrow",
    ]
    static let tradingNames: [String] = [
        "bloomberg", "thinkorswim", "ameritrade", "schwab", "fidelity", "active trader pro", "e*trade", "etrade",
        "interactive brokers", "trader workstation", "ibkr", "tradestation", "webull", "robinhood", "tastytrade",
        "tastyworks", "ninjatrader", "metatrader", "tradingview", "sierra chart", "multicharts", "moomoo",
        "tiger trade", "saxotrader", "trading 212", "etoro", "plus500", "questrade", "refinitiv", "eikon", "coinbase",
        "kraken", "binance", "okx", "bybit", "kucoin", "bitfinex", "bitstamp", "crypto.com", "metamask", "electrum",
        "ledger live", "trezor", "exodus", "atomic wallet", "trust wallet", "sparrow wallet", "wasabi wallet",
        "feather wallet", "monero", "bitcoin core", "bitcoin-qt",
    ]
    static let deniedIds: [String] = [
        "com.apple.TV", "com.apple.Music", "com.apple.iBooksX", "com.apple.podcasts", "com.spotify.client",
        "com.amazon.music", "com.tidal.desktop", "com.deezer.deezer-desktop", "com.pandora.desktop",
        "com.electron.pocket-casts", "au.com.shiftyjelly.PocketCasts", "tv.plex.desktop", "tv.plex.htpc",
        "tv.plex.plexamp", "com.amazon.aiv.AIVApp", "com.amazon.Kindle", "com.amazon.Lassen", "net.kovidgoyal.calibre",
        "com.kobo.desktop.Kobo",
    ]
    static let deniedNames: [String] = [
        "netflix", "disney+", "hulu", "prime video", "apple tv", "hbo max", "paramount+", "peacock", "tubi",
        "crunchyroll", "vudu", "spotify", "spotube", "apple music", "amazon music", "youtube music", "tidal", "deezer",
        "pandora", "qobuz", "pocket casts", "apple podcasts", "plexamp", "plex media", "kindle", "apple books", "kobo",
        "calibre", "foliate", "thorium reader", "libby", "audible", "adobe digital editions", "scribd", "everand",
    ]

    /// Trading first (finance apps carry generic words), then denied, browser, terminal — the core's order.
    static let order: [AppCategory] = [.trading, .denied, .browser, .terminal]

    static func ids(_ c: AppCategory) -> [String] {
        switch c {
        case .browser: return browserIds
        case .terminal: return terminalIds
        case .trading: return tradingIds
        case .denied: return deniedIds
        case .other: return []
        }
    }

    static func names(_ c: AppCategory) -> [String] {
        switch c {
        case .browser: return browserNames
        case .terminal: return terminalNames
        case .trading: return tradingNames
        case .denied: return deniedNames
        case .other: return []
        }
    }

    private static let exact: [String: AppCategory] = {
        var map: [String: AppCategory] = [:]
        for c in order { for id in ids(c) where map[id.lowercased()] == nil { map[id.lowercased()] = c } }
        return map
    }()

    /// The category of an app: its bundle id exactly (case-insensitively), else the first name substring found in its name or bundle id.
    public static func category(bundleId: String?, name: String?) -> AppCategory {
        if let id = bundleId?.lowercased(), let c = exact[id] { return c }
        let haystacks = [name, bundleId].compactMap { $0?.lowercased() }.filter { !$0.isEmpty }
        for c in order {
            for needle in names(c) where haystacks.contains(where: { $0.contains(needle) }) { return c }
        }
        return .other
    }

    /// The default tier of a category; nil for policy-denied apps, which are never grantable.
    public static func tier(_ c: AppCategory) -> Tier? {
        switch c {
        case .browser, .trading: return .read
        case .terminal: return .click
        case .denied: return nil
        case .other: return .full
        }
    }
}
