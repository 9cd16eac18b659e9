"""factory_boy factories for the annotation app."""

import factory

from annotation.accounts.models import Role, User
from annotation.catalogue import content, schemas
from annotation.catalogue.models import Campaign, Pair, Prompt, RatingSchema, Response
from annotation.workqueue.models import Annotation


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"rater{n}")
    role = Role.ANNOTATOR
    password = factory.django.Password("pw")


class CuratorFactory(UserFactory):
    username = factory.Sequence(lambda n: f"curator{n}")
    role = Role.CURATOR


class RatingSchemaFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RatingSchema

    slug = factory.Sequence(lambda n: f"schema-{n}")
    preset = "mmrb2-generation"
    definition = factory.LazyAttribute(lambda o: schemas.preset(o.preset, "text-to-image"))


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    slug = factory.Sequence(lambda n: f"campaign-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.title())
    kind = "text-to-image"
    rating_schema = factory.SubFactory(RatingSchemaFactory)
    overlap = 3


class PromptFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Prompt

    campaign = factory.SubFactory(CampaignFactory)
    external_id = factory.Sequence(lambda n: f"prompt-{n}")
    source = "testbench"
    content = factory.LazyAttribute(lambda o: [{"type": "text", "text": f"Draw {o.external_id}", "format": "plain"}])


def _text_content(text):
    blocks = [{"type": "text", "text": text, "format": "markdown"}]
    return blocks


class ResponseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Response

    prompt = factory.SubFactory(PromptFactory)
    model_name = factory.Sequence(lambda n: f"model-{n % 4}")
    content = factory.Sequence(lambda n: _text_content(f"answer {n}"))
    content_sha256 = factory.LazyAttribute(lambda o: content.digest(o.content))


class PairFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Pair

    campaign = factory.SubFactory(CampaignFactory)
    prompt = factory.SubFactory(PromptFactory, campaign=factory.SelfAttribute("..campaign"))
    response_a = factory.SubFactory(ResponseFactory, prompt=factory.SelfAttribute("..prompt"))
    response_b = factory.SubFactory(ResponseFactory, prompt=factory.SelfAttribute("..prompt"))
    external_id = factory.Sequence(lambda n: f"pair-{n}")
    required_annotations = factory.LazyAttribute(lambda o: o.campaign.overlap)
    status = Pair.Status.QUEUED


class AnnotationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Annotation

    pair = factory.SubFactory(PairFactory)
    source = Annotation.Source.IMPORTED
    rater_label = factory.Sequence(lambda n: f"rater-{n}")
    values = factory.LazyFunction(lambda: {"overall": 5})
