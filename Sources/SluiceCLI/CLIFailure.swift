// A one-line failure and the exit status it ends the program with.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct CLIFailure: Error {
    let code: Int32
    let message: String
}
