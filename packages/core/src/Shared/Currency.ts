import { Schema } from "effect"

/**
 * The circulating currencies of ISO 4217 (list one, without fund codes, precious metals and test codes,
 * which no catalog prices in).
 */
export const codes: ReadonlySet<string> = new Set(
  (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY " +
    "COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS " +
    "INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU " +
    "MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK " +
    "SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST " +
    "XAF XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL"
  ).split(" ")
)

/** An ISO 4217 currency code in upper case, such as EUR or USD. */
export const CurrencyCode = Schema.String.check(
  Schema.makeFilter((code: string) => codes.has(code), {
    message: "must be an ISO 4217 currency code such as EUR or USD"
  })
).annotate({ identifier: "CurrencyCode" })
