"""wsdialects."""
