"""Data and servers for the release tests: two campaigns with kept, dropped and media-bearing pairs; a local S3."""

import io
import socket
import threading

import boto3
import httpx
import pytest
from PIL import Image

from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.catalogue.services.media import media_store
from annotation.workqueue.models import Annotation
from curation.models import ConsensusRecord
from tests.factories import AnnotationFactory, CampaignFactory, PairFactory, PromptFactory, ResponseFactory, UserFactory

POLICY = {"policy": "mmrb2-generation", "params": {"max_spread": 4, "tie_band": [3.0, 4.0]}}


def png(color) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (6, 4), color).save(buffer, "PNG")
    return buffer.getvalue()


def kept(pair, chosen, policy=POLICY):
    return ConsensusRecord.objects.create(pair=pair, policy=policy["policy"], params=policy["params"],
                                          decision=ConsensusRecord.Decision.KEPT, chosen=chosen)


def image_pair(campaign, external_id, media_a, media_b, prompt_text="Draw a red fox"):
    prompt = PromptFactory(campaign=campaign, external_id=f"p-{external_id}", source="oneigbench",
                           metadata={"id": external_id, "category": "animals"},
                           content=[{"type": "text", "text": prompt_text, "format": "plain"}])
    response_a = ResponseFactory(prompt=prompt, model_name="imagen4",
                                 content=[{"type": "image", "media": media_a.sha256, "alt": ""}])
    response_b = ResponseFactory(prompt=prompt, model_name="gpt-image",
                                 content=[{"type": "text", "text": "Here it is:", "format": "markdown"},
                                          {"type": "image", "media": media_b.sha256, "alt": "fox"}])
    return PairFactory(campaign=campaign, prompt=prompt, response_a=response_a, response_b=response_b,
                       external_id=external_id, status="complete", criteria=["faithful to the prompt"])


def rate(pair, overall_by_rater: dict):
    for rater, overall in overall_by_rater.items():
        values = {"text_faithfulness": {"A": 2, "B": 3}, "image_quality": {"A": 2, "B": 2}, "overall": overall,
                  "rationale": "because", "prompt_valid": True}
        if isinstance(rater, str):
            AnnotationFactory(pair=pair, rater_label=rater, values=values)
        else:
            Annotation.objects.create(pair=pair, annotator=rater, source=Annotation.Source.CONCORD, values=values)


@pytest.fixture
def release_data(db):
    """t2i: four pairs (three kept A/B/A, one dropped) rated by two accounts and one imported rater;
    reasoning: one kept pair rated per response."""
    red, green, blue = media_store(data=png((255, 0, 0))), media_store(data=png((0, 255, 0))), media_store(data=png((0, 0, 255)))
    alice = UserFactory(username="alice", email="alice@example.org")
    bob = UserFactory(username="bob", email="bob@example.org")
    t2i = CampaignFactory(slug="t2i-wave", kind="text-to-image",
                          rating_schema=rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image"))
    pairs = {
        "t2i-1": image_pair(t2i, "t2i-1", red, green),
        "t2i-2": image_pair(t2i, "t2i-2", green, blue),
        "t2i-3": image_pair(t2i, "t2i-3", red, blue),
        "t2i-4": image_pair(t2i, "t2i-4", blue, red),
    }
    rate(pairs["t2i-1"], {alice: 6, bob: 5, "ext-7": 6})
    rate(pairs["t2i-2"], {alice: 1, bob: 2, "ext-7": 5})
    rate(pairs["t2i-3"], {alice: 6, bob: 4, "ext-7": 5})
    rate(pairs["t2i-4"], {alice: 3, bob: 4, "ext-7": 3})
    kept(pairs["t2i-1"], "A")
    kept(pairs["t2i-2"], "B")
    kept(pairs["t2i-3"], "A")
    ConsensusRecord.objects.create(pair=pairs["t2i-4"], policy=POLICY["policy"], params=POLICY["params"],
                                   decision=ConsensusRecord.Decision.DROPPED, reason="mean_in_tie_band")
    reasoning = CampaignFactory(slug="reasoning-wave", kind="reasoning",
                                rating_schema=rating_schema_for_preset(preset="mmrb2-reasoning", kind="reasoning"))
    prompt = PromptFactory(campaign=reasoning, external_id="r-prompt", source="blink",
                           content=[{"type": "text", "text": "Which image is fake?", "format": "plain"},
                                    {"type": "image", "media": red.sha256, "alt": ""}])
    trace = [{"type": "reasoning", "blocks": [{"type": "text", "text": "Crop the shoes.", "format": "markdown"}]},
             {"type": "tool_call", "name": "python", "arguments": {"code": "crop()"},
              "result": [{"type": "image", "media": green.sha256, "alt": ""}]},
             {"type": "final_answer", "text": "Image A"}]
    pair = PairFactory(campaign=reasoning, prompt=prompt, external_id="reason-1", status="complete",
                       response_a=ResponseFactory(prompt=prompt, model_name="o3-agent", content=trace),
                       response_b=ResponseFactory(prompt=prompt, model_name="gpt5-agent",
                                                  content=[{"type": "final_answer", "text": "Image C"}]))
    for rater, answer in ((alice, {"A": 1, "B": 3}), (bob, {"A": 2, "B": 3}), ("ext-1", {"A": 1, "B": 3})):
        values = {"correctness": answer, "rationale": "checked", "prompt_valid": True}
        if isinstance(rater, str):
            AnnotationFactory(pair=pair, rater_label=rater, values=values)
        else:
            Annotation.objects.create(pair=pair, annotator=rater, values=values)
    kept(pair, "A", {"policy": "mmrb2-reasoning", "params": {}})
    return {"t2i": t2i, "reasoning": reasoning, "pairs": pairs, "reason_pair": pair, "media": [red, green, blue],
            "users": [alice, bob]}


@pytest.fixture
def releases_root(settings, tmp_path):
    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    return settings.CONCORD_RELEASES_ROOT


class CuttableProxy:
    """A TCP proxy in front of the S3 server; ``cut`` drops every connection and refuses new ones (S3 down)."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets |= {client, upstream}
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        self.up = False
        with self.lock:
            for sock in self.sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.sockets.clear()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def s3_server():
    """A moto S3 server over HTTP on an ephemeral port of 127.0.0.1, behind a proxy the test can cut."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    # moto keeps its state per process, not per server: start every test from an empty store.
    httpx.post(f"http://{host}:{port}/moto-api/reset", timeout=10).raise_for_status()
    proxy = CuttableProxy((host, port))
    endpoint = f"http://127.0.0.1:{proxy.port}"
    client = boto3.client("s3", endpoint_url=f"http://{':'.join(map(str, server.get_host_and_port()))}",
                          aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    client.create_bucket(Bucket="concord-releases")
    yield {"endpoint": endpoint, "client": client, "proxy": proxy}
    proxy.close()
    server.stop()


@pytest.fixture
def s3_releases(settings, s3_server, tmp_path):
    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {
        "bucket": "concord-releases", "prefix": "releases/", "endpoint_url": s3_server["endpoint"],
        "access_key": "test", "secret_key": "test", "region": "us-east-1",
        "multipart_threshold": 64 * 1024 * 1024, "part_size": 16 * 1024 * 1024,
    }
    return s3_server
