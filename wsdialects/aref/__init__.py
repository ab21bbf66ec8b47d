"""Asynchronous references: the `aref` dialect and its semantics (Tawa §III-B)."""

from wsdialects.aref.dialect import Aref, ConsumedOp, CreateOp, GetOp, PutOp, RingType

__all__ = ["Aref", "ConsumedOp", "CreateOp", "GetOp", "PutOp", "RingType"]
