"""staticformer_export: a PyTorch model as staticformer weights (C++ headers, blobs, a C API),
checked against the library's own arithmetic.

    staticformer-export --module model.pt --name my_model --header my_model.hpp    (cli.py)
    from staticformer_export import TransformerClassifier                          (staticformer_torch.py)

Modules: cli (the command line), encoder_export and model_export (the exports), module_import
(a user's own nn.Module, by torch.fx), staticformer_torch (TransformerClassifier and its layers),
encoder_schema (the options, once), export_verify (the self-check), export_report and
kernel_costs (the report), c_api (the C API), cpp (the library's headers and C++ tool programs).
"""

__version__ = "0.1.0"  # the CMake project's version (tests/package_test.py compares them)


def __getattr__(name):  # TransformerClassifier without importing torch for every other use
    if name == "TransformerClassifier":
        from .staticformer_torch import TransformerClassifier
        return TransformerClassifier
    raise AttributeError(f"module 'staticformer_export' has no attribute {name!r}")
