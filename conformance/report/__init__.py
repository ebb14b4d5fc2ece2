"""What a run concludes, written down: per-rule verdicts and the level reached
(:mod:`.verdicts`), what the terminal and the badge say of them (:mod:`.headline`), the
certificate (:mod:`.certificate`, its ``run`` parts :mod:`.runschema`, the evidence of what it was
made from :mod:`.evidence`, and the JSON Schema subset that validates it
:mod:`.jsonschema_subset`), a certificate checked by making its run again (:mod:`.verify`), and
the Python API that runs the suite and reads the certificate (:mod:`.api`, re-exported by
:mod:`conformance`). It may import :mod:`conformance.version` and :mod:`spec` only: it reads
outcomes, and starts the suite only as a separate pytest process.
"""
