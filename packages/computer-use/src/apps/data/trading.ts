/**
 * Trading, banking-grade brokerage and crypto wallets → read tier. One wrong click can move
 * money irreversibly, so these are screenshot-only whatever the grant says.
 */
import type { CategoryEntries } from '../types.ts';

export const TRADING: CategoryEntries = {
  ids: [
    // macOS bundle ids
    'com.webull.desktop.v1', 'com.webull.trade.mac.v1', 'com.tastytrade.desktop',
    'com.tradingview.tradingviewapp.desktop', 'com.fidelity.activetrader', 'com.fmr.activetrader',
    'com.install4j.5889-6375-8446-2021' /* IBKR Trader Workstation */, 'com.binance.BinanceDesktop',
    'com.electron.exodus', 'org.pythonmac.unspecified.Electrum', 'com.ledger.live', 'io.trezor.TrezorSuite',
    'org.bitcoin.Bitcoin-Qt', 'com.sparrowwallet.sparrow',
    // Linux WM_CLASS / executable basenames
    'tradingview', 'thinkorswim', 'tws', 'ibgateway', 'webull', 'webull-desktop',
    'ledger-live', 'ledger-live-desktop', 'Ledger Live', 'electrum', 'exodus',
    'trezor-suite', 'Trezor Suite', 'bitcoin-qt', 'sparrow', 'monero-wallet-gui',
    'wassabee', 'Atomic Wallet', 'ninjatrader', 'tradestation',
    'metatrader', 'terminal64' /* MetaTrader 5 under Wine */, 'sierrachart', 'multicharts',
    // Linux .desktop / flatpak app ids
    'tradingview.desktop', 'com.tradingview.tradingview', 'electrum.desktop', 'org.electrum.electrum',
    'ledger-live-desktop.desktop', 'com.ledger.live.desktop', 'exodus.desktop', 'io.exodus.Exodus',
    'trezor-suite.desktop', 'bitcoin-qt.desktop', 'org.bitcoincore.bitcoin-qt', 'org.getmonero.Monero',
    'org.featherwallet.Feather', 'io.wasabiwallet.WasabiWallet', 'sparrow.desktop',
  ],
  names: [
    'bloomberg', 'thinkorswim', 'ameritrade', 'schwab', 'fidelity', 'active trader pro', 'e*trade',
    'etrade', 'interactive brokers', 'trader workstation', 'ibkr', 'tradestation', 'webull',
    'robinhood', 'tastytrade', 'tastyworks', 'ninjatrader', 'metatrader', 'tradingview',
    'sierra chart', 'multicharts', 'moomoo', 'tiger trade', 'saxotrader', 'trading 212', 'etoro',
    'plus500', 'questrade', 'refinitiv', 'eikon', 'coinbase', 'kraken', 'binance', 'okx', 'bybit',
    'kucoin', 'bitfinex', 'bitstamp', 'crypto.com', 'metamask', 'electrum', 'ledger live', 'trezor',
    'exodus', 'atomic wallet', 'trust wallet', 'sparrow wallet', 'wasabi wallet', 'feather wallet',
    'monero', 'bitcoin core', 'bitcoin-qt',
  ],
};
