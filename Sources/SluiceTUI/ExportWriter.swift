// The files a key writes of what was observed: a task's Mermaid diagram or HAR, or one HAR of every completed task.
import SluiceViewModel

public enum ExportWriter {
    /// Writes the file `export` asks for into `outputDirectory`; a message saying where, or why not.
    public static func write(_ export: Export, model: Model, flows: FlowLog, into outputDirectory: String) -> String {
        let written: Result<String, PlacementError>
        switch export {
        case .mermaid(let id), .har(let id):
            let chain = flows.chain(containing: id)
            guard let first = chain.first else { return "nothing recorded for #\(id)" }
            let name = model.row(id)?.name ?? "task-\(id)"
            if case .mermaid = export {
                let title = "sluice, observed delegate flow of task \(first.id)" + (chain.count > 1 ? " and download task \(chain[chain.count - 1].id)" : "")
                written = ExportFile.write(MermaidWriter.text(SequenceDiagram.of([chain]), title: title), into: outputDirectory,
                                           name: name, suffix: ".mmd")
            } else {
                guard HARWriter.isHTTP(first.url) else { return "#\(id) is not an HTTP transfer: a HAR has nothing to say about it" }
                written = ExportFile.write(HARWriter.text([chain], clock: .now, title: "sluice, task \(first.id)"), into: outputDirectory,
                                           name: name, suffix: ".har")
            }
        case .harOfCompleted:
            let chains = flows.chains.filter { $0.last?.hasEnded == true && HARWriter.isHTTP($0.first?.url ?? "") }
            guard !chains.isEmpty else { return "no completed HTTP transfer yet" }
            written = ExportFile.write(HARWriter.text(chains, clock: .now, title: "sluice, \(chains.count) completed tasks"),
                                       into: outputDirectory, name: "sluice-tasks", suffix: ".har")
        }
        switch written {
        case .success(let path): return "wrote " + path
        case .failure(let problem): return problem.message
        }
    }
}
