// A data task the app converts to a download (`d`, or `becomeDownload` at its response) is placed as a download
// added as one: NAME.sluice-part beside its target, checkpointed, kept by the store under that name.
import SluiceEngine
import SluiceViewModel

extension TransferApp {
    /// Chooses where the download `dataTask` becomes writes, before the engine converts it. Named as the response
    /// names the file; without a free name, the engine's hidden temporary file as before (placed at its end).
    func placeConversion(_ id: Int, _ dataTask: DataTask) {
        let url = dataTask.currentRequest.url.absoluteString
        let suggested = dataTask.response?.suggestedFilename ?? TaskName.fileName(of: url)
        guard case .success(let claimed) = DownloadCompanions.claimFree(in: outputDirectory, suggested: suggested, url: url,
                                                                        isHeld: { delegate.holds(target: $0) }) else { return }
        delegate.converting(id, into: claimed.companions)
        keeper?.converting(id, into: claimed.companions)
        dataTask.downloadPartialFile = claimed.companions.partialPath
    }
}
